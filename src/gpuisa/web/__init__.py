"""The web reference: HTML pages, JSON API and static export over one read-only catalog.

`site.Site` renders pages from `Catalog` documents (shared by the live app and the export);
`app.create_app` wraps it in FastAPI with an in-memory response cache; `export.export_site`
writes every page with relative links.
"""
