"""The Challenge admin's CSV export: the stakes in sequence order (with their guesses once the solution
is on chain, as the public list shows them), then the pot's payments and refunds."""

import csv
import io
from collections.abc import Iterable, Iterator

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from challenges.admin.links import AdminMixinBase
from challenges.models import Challenge
from responses.models import PotPayment
from responses.selectors import stakes_public, usdc

HEADER = [
    "record",
    "seq",
    "payer",
    "amount_usdc",
    "transaction_hash",
    "block_number",
    "guess",
    "correct",
    "distance_m",
    "revealed_on_chain",
    "kind",
]
PAGE = 1_000


def csv_line(values: Iterable) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(["" if value is None else value for value in values])
    return out.getvalue()


def export_lines(challenge: Challenge) -> Iterator[str]:
    yield csv_line(HEADER)
    after = 0
    while True:
        page = stakes_public(challenge_id=challenge.pk, after_id=after, limit=PAGE)
        for row in page[:PAGE]:
            yield csv_line(
                [
                    "stake",
                    row["id"],
                    row["submitterAddress"],
                    row["submissionStake"],
                    row["transactionHash"],
                    row["blockNumber"],
                    row["submissionText"],
                    row["isCorrect"],
                    row["distanceMeters"],
                    row["revealed"],
                    "",
                ]
            )
        if len(page) <= PAGE:
            break
        after = page[PAGE - 1]["_row"]
    for payment in PotPayment.objects.filter(challenge=challenge):
        amount = usdc(int(payment.amount_units) + int(payment.bond_units))
        yield csv_line(
            ["payment", payment.seq, payment.to, amount, payment.transaction_hash, payment.block_number]
            + ["", "", "", "", payment.kind]
        )


class ChallengeExportMixin(AdminMixinBase):
    @admin.action(description="Export stakes and payments (CSV)")
    def export_selected(self, request, queryset):
        if queryset.count() != 1:
            messages.error(request, "Export: select exactly one challenge.")
            return None
        return HttpResponseRedirect(reverse("admin:challenges_challenge_export", args=[queryset.get().pk]))

    def export_view(self, request: HttpRequest, object_id: str) -> StreamingHttpResponse:
        challenge = get_object_or_404(Challenge, pk=object_id)
        if not self.has_view_permission(request, challenge):
            raise PermissionDenied
        response = StreamingHttpResponse(export_lines(challenge), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="challenge-{challenge.pk}.csv"'
        return response
