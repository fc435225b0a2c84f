// Swagger UI for /docs, from the files the server ships (no CDN); the spec is the server's /openapi.json.
(function () {
  var el = document.getElementById("swagger-ui");
  if (!el || !window.SwaggerUIBundle) return;
  window.SwaggerUIBundle({ url: el.getAttribute("data-openapi"), dom_id: "#swagger-ui", validatorUrl: null,
                           deepLinking: true, tryItOutEnabled: true });
})();
