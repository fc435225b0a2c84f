"""Readers: one per upstream format. Each yields model records and knows nothing of the catalog."""
