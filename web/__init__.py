"""The analysis board in the browser: ``web.app.create_app`` and its static page."""
