"""The Challenge admin's CSV export: every stake of the challenge in sequence order (its guess, correct
and distance once the solution is on chain, as the public list shows them then), then the pot's
payments and refunds. Streamed a thousand stakes a chunk, each chunk two queries, so that a challenge
of 200,000 stakes arrives well inside the router's budget (tests/deploy/test_rehearsal.py)."""

import csv
import io
from collections.abc import Iterator

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from challenges.admin.links import AdminMixinBase
from challenges.models import Challenge, PotState
from responses.models import Guess, PotPayment, Stake
from responses.selectors import usdc

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
STAKE_COLUMNS = ("seq", "payer", "amount_units", "transaction_hash", "block_number", "commitment", "revealed_correct")


def _chunk(rows: list[list]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["" if value is None else value for value in row] for row in rows])
    return out.getvalue()


def _solution_on_chain(challenge: Challenge) -> bool:
    return PotState.objects.filter(challenge=challenge, solution_block__isnull=False).exists()


def export_lines(challenge: Challenge) -> Iterator[str]:
    yield _chunk([HEADER])
    revealed = _solution_on_chain(challenge)
    after = 0
    while True:
        page = list(
            Stake.objects.filter(challenge=challenge, seq__gt=after).order_by("seq").values_list(*STAKE_COLUMNS)[:PAGE]
        )
        if not page:
            break
        guesses = {}
        if revealed:  # before the reveal the site shows no guess, and neither does its export
            commitments = {row[5] for row in page}
            guesses = {
                (payer, commitment): (text, correct, distance)
                for payer, commitment, text, correct, distance in Guess.objects.filter(
                    challenge=challenge, commitment__in=commitments
                ).values_list("payer", "commitment", "text", "is_correct", "distance_m")
            }
        lines = []
        for seq, payer, units, tx_hash, block, commitment, revealed_correct in page:
            text, correct, distance = guesses.get((payer, commitment), (None, None, None))
            if text is None and revealed:
                correct = revealed_correct  # revealed on chain by someone else: the pot's verdict
            lines.append(
                ["stake", seq, payer, usdc(units), tx_hash, block, text, correct]
                + [f"{distance:.2f}" if distance is not None else None, revealed_correct is not None, ""]
            )
        yield _chunk(lines)
        after = page[-1][0]
    payments = [
        ["payment", p.seq, p.to, usdc(int(p.amount_units) + int(p.bond_units)), p.transaction_hash, p.block_number]
        + [None, None, None, None, p.kind]
        for p in PotPayment.objects.filter(challenge=challenge).order_by("block_number", "log_index")
    ]
    if payments:
        yield _chunk(payments)


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
