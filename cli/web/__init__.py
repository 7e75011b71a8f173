"""The analysis board in the browser: ``morris_cli.web.app.create_app`` and its static page."""
