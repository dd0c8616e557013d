from django.conf import settings
from django.contrib import admin
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

from chain.views import PaymentAuthorizationView
from challenges.views import ActiveChallengeView, ChallengeView, ResolvedChallengesView
from responses.views import ChallengeWinnersView, GuessCreateView, ResponseListCreateView, StakeStatusView

from . import health, views

api = [
    path("api/challenges/active", ActiveChallengeView.as_view(), name="challenges-active"),
    path("api/challenges/resolved", ResolvedChallengesView.as_view(), name="challenges-resolved"),
    path("api/challenges/<int:challenge_id>", ChallengeView.as_view(), name="challenges-one"),
    path("api/challenges/<int:challenge_id>/winners", ChallengeWinnersView.as_view(), name="challenges-winners"),
    path("api/responses", ResponseListCreateView.as_view(), name="responses"),
    path("api/responses/guess", GuessCreateView.as_view(), name="responses-guess"),
    # Malformed commitments reach the view too: a 400 that says so, not the 404 of an unknown path.
    re_path(r"^api/responses/(?P<commitment>[^/]+)$", StakeStatusView.as_view(), name="responses-status"),
    path("api/payments/authorization", PaymentAuthorizationView.as_view(), name="payments-authorization"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
]

urlpatterns = [
    path("", views.index, name="index"),
    path("healthz", health.healthz, name="healthz"),
    path("verify_challenge.py", views.verify_challenge_script, name="verify-challenge-script"),
    path(settings.ADMIN_URL, admin.site.urls),
    *api,
    # Every other path: JSON 404 under /api/, the page with status 404 elsewhere (also with DEBUG on).
    re_path(r"^(?!static/).*$", views.page_not_found, name="not-found"),
]

handler404 = "config.views.page_not_found"
handler400 = "config.views.bad_request"
