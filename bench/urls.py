"""The site's own URLs behind one extra path, `/bench/floor` (first: the site ends in a catch-all)."""

from config.urls import handler404  # noqa: F401
from config.urls import urlpatterns as site_urlpatterns
from django.urls import path

from .views import floor

urlpatterns = [path("bench/floor", floor, name="bench-floor"), *site_urlpatterns]
