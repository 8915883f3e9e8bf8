from flask import Flask
from werkzeug.exceptions import BadRequest

class CSRFProtect:
    def __init__(self, app: Flask | None = ...) -> None: ...

class CSRFError(BadRequest):
    description: str

def generate_csrf(secret_key: str | None = ..., token_key: str | None = ...) -> str: ...
