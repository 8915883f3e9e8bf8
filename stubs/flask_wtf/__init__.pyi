# The part of Flask-WTF (>= 1.2) this project uses, typed. Flask-WTF ships no types.
from flask_wtf.csrf import CSRFProtect as CSRFProtect
