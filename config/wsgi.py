import os

from django.core.wsgi import get_wsgi_application

from config.bodies import refuse_undecodable_charsets

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = refuse_undecodable_charsets(get_wsgi_application())
