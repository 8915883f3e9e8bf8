"""The web page of pyramid-board: a Flask app served by waitress::

    from web_ui.app import create_app
    from web_ui.server import serve, stop
    app = create_app(table=table, config=config, views=VIEWS)  # a started Table, the views
    serve(app, "0.0.0.0", 8080)   # blocks until stop(app) (or Ctrl-C)

This file imports nothing, so that importing one of the page's modules (a game's view, the
drawings) loads no more than that module needs.
"""
