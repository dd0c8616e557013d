"""verify_challenge.py re-implements the rules with the standard library only: it must agree with
the server's code on the shared vectors (the same file the TypeScript verifier is tested on). Its
commitments are tested beside the server's, on the same cases, in tests/test_vectors.py."""

from decimal import Decimal
from typing import Any

import pytest

import verify_challenge as v
from chain.calldata import CalldataError, decode_transfer
from challenges.scoring import haversine_m


def test_coordinates(vectors):
    for case in vectors["coordinates"]["valid"]:
        assert v.canonical_coordinates(case["input"]) == case["canonical"], case
    for text in vectors["coordinates"]["invalid"]:
        assert v.canonical_coordinates(text) is None, text


def test_calldata_decodes_back_to_its_words(vectors):
    for case in vectors["calldata"]:
        decoded = v.decode_stake_calldata(case["data"])
        assert decoded == v.StakeCalldata(
            recipient=case["treasury"].lower(),
            amount_units=int(case["amountUnits"]),
            commitment=case["commitment"],
            challenge_id=case["challengeId"],
            timestamp=case["timestamp"],
        )
    plain = vectors["calldata"][0]["data"][: 2 + 2 * 68]
    assert v.decode_stake_calldata(plain) is None
    assert v.decode_stake_calldata("0x23b872dd" + vectors["calldata"][0]["data"][10:]) is None


@pytest.mark.parametrize("byte", [0, 11])
def test_a_recipient_word_with_dirty_upper_bytes_is_not_a_transfer_to_anyone(vectors, byte):
    """The recipient word is an address padded with 12 zero bytes; anything else in those bytes
    names no address (a token reading only the low 20 bytes would still pay the treasury), so the
    script and the server both refuse it as calldata, for the stake's words and the plain ones."""
    stake = vectors["calldata"][0]["data"]
    at = 10 + 2 * byte  # after "0x" and the selector
    dirty = stake[:at] + "ff" + stake[at + 2 :]
    for data in (dirty, dirty[: 2 + 2 * 68]):
        assert v.decode_transfer_calldata(data) is None
        with pytest.raises(CalldataError):
            decode_transfer(data)
    assert v.decode_transfer_calldata(stake) is not None


def test_distances_agree_with_the_server_formula(vectors):
    for case in vectors["distances"]:
        ours = v.distance_between(case["from"], case["to"])
        assert f"{ours:.2f}" == case["meters"], case
        lat1, lon1 = (float(x) for x in case["from"].split(", "))
        lat2, lon2 = (float(x) for x in case["to"].split(", "))
        assert ours == haversine_m(lat1, lon1, lat2, lon2)


def test_prize_split_in_token_units(vectors):
    for case in vectors["prizeSplits"]:
        split = v.prize_split(v.to_units(case["total"]))
        assert [v.from_units(x) for x in (split.earliest, split.highest, split.operations)] == [
            case["earliest"],
            case["highest"],
            case["operations"],
        ], case


def test_winners_in_chain_order(vectors):
    for case in vectors["winners"]:
        outcomes = []
        for r in case["responses"]:
            block, tx, log = r["position"]
            row = {"id": r["id"], "submissionStake": r["stake"], "blockNumber": block, "transactionIndex": tx,
                   "logIndex": log, "transactionHash": "0x"}  # fmt: skip
            outcomes.append(v.Outcome(row, correct=r["correct"]))
        earliest, highest = v.pick_winners(outcomes, 6)
        assert (earliest and earliest.id, highest and highest.id) == (case["earliest"], case["highest"]), case["about"]


@pytest.mark.parametrize("amount", ["1", "1.5", "0.000001", "999999.999999", "12.340000"])
def test_units_are_exact(amount):
    assert v.to_units(amount) == int(Decimal(amount) * 10**6)
    assert Decimal(v.from_units(v.to_units(amount))) == Decimal(amount)


@pytest.mark.parametrize("bad", ["1.0000001", "-1", "1e3", "", "1.", " 1"])
def test_units_refuse_what_is_not_a_plain_amount(bad):
    with pytest.raises(ValueError):
        v.to_units(bad)


def test_the_server_picks_the_same_winners(vectors):
    from types import SimpleNamespace

    from challenges.scoring import pick_earliest, pick_highest

    for case in vectors["winners"]:
        correct = [
            SimpleNamespace(
                id=r["id"],
                submission_stake=Decimal(r["stake"]),
                block_number=r["position"][0],
                transaction_index=r["position"][1],
                log_index=r["position"][2],
            )
            for r in case["responses"]
            if r["correct"]
        ]
        earliest, highest = pick_earliest(correct), pick_highest(correct)
        assert (earliest and earliest.id, highest and highest.id) == (case["earliest"], case["highest"]), case["about"]


def test_next_page_links_stay_on_the_named_site():
    site = v.Site("https://geopoem.example/", timeout=1)
    header = {"link": '<http://internal:8000/api/responses?challengeId=3&cursor=YWZ0ZXI6OQ>; rel="next"'}
    assert site.on_site(v.next_link(header)) == "https://geopoem.example/api/responses?challengeId=3&cursor=YWZ0ZXI6OQ"
    assert v.next_link({}) is None


def test_the_anchor_topic_and_terms_hash(vectors):
    """docs/protocol.md section 6: the TermsAnchored topic written into the verifier, and the terms
    hash it recomputes from the API's texts."""
    from eth_utils import keccak

    anchor = vectors["anchor"]
    assert v.TERMS_ANCHORED_TOPIC == anchor["topic"] == "0x" + keccak(text=anchor["eventSignature"]).hex()
    for case in anchor["terms"]:
        ours = v.terms_hash(
            challenge_id=case["challengeId"],
            title=case["poemTitle"],
            poem=case["poemText"],
            instructions=case["instructionsText"],
        )
        assert ours == case["termsSha256"], case


def test_a_plain_transfer_decodes_without_the_geopoem_words(vectors):
    """Rule 5 of docs/protocol.md section 2: a 68-byte transfer is a transfer (its claim then fails
    on the commitment); anything else is not."""
    to, units = "0x" + "77" * 20, 2_500_000
    plain = "0xa9059cbb" + "0" * 24 + to[2:] + f"{units:064x}"
    decoded = v.decode_transfer_calldata(plain)
    assert (decoded.recipient, decoded.amount_units, decoded.commitment, decoded.challenge_id) == (to, units, "", None)
    assert v.decode_stake_calldata(plain) is None
    assert v.decode_transfer_calldata(plain + "00") is None
    assert v.decode_transfer_calldata("0x095ea7b3" + plain[10:]) is None


def test_a_late_claim_that_would_have_won(vectors):
    """docs/protocol.md section 5, "Exceptions": the prizes a claim left out after resolution would
    have taken had it been counted (the page's verifier reads the same cases)."""
    exceptions = vectors["exceptions"]
    assert v.AFTER_RESOLUTION == exceptions["code"]
    assert list(v.EXCEPTION_KINDS) == exceptions["kinds"]
    for case in exceptions["wouldWin"]:
        earliest, highest, claim = case["earliest"], case["highest"], case["claim"]
        won = v.would_win(
            correct=claim["correct"],
            stake_units=v.to_units(claim["stake"]),
            position=tuple(claim["position"]),
            earliest=tuple(earliest["position"]) if earliest else None,
            highest=(v.to_units(highest["stake"]), tuple(highest["position"])) if highest else None,
        )
        assert won == case["wins"], case["about"]


def test_an_exceptions_recorded_at_is_unix_seconds_printed_in_utc(vectors):
    """docs/protocol.md section 5, "Exceptions": `recordedAt` is a whole number of Unix seconds; the
    script prints it as an ISO UTC time, and anything else is no time (a difference)."""
    for case in vectors["exceptions"]["recordedAt"]["cases"]:
        seconds = v.recorded_at_seconds(case["value"])
        assert (v.utc_iso(seconds) if seconds is not None else None) == case["utc"], case


@pytest.mark.parametrize(
    ("recorded_at", "shown", "differs"),
    [(1795000000, "2026-11-18T11:06:40Z", False), ("2026-11-18T11:06:40Z", "at an unknown time", True)],
    ids=["unix-seconds", "a-date-string"],
)
def test_an_exception_says_when_it_was_recorded_in_utc_or_differs(recorded_at, shown, differs):
    """A `reorged` exception of a counted response whose payment is on chain: the EXCEPTION line
    prints its time in UTC; a time in any other form (a site outside docs/protocol.md section 5) is
    a difference, never guessed at. The chain and the terms are read only for a late claim (none)."""
    row = {"id": 17, "transactionHash": "0x" + "ab" * 32, "submitterAddress": "0x" + "cd" * 20}
    row["submissionStake"] = "2.500000"
    report = v.Report(outcomes=[v.Outcome(row=row)], differences=[], demo=False)
    no_chain: Any = None
    v.check_exceptions(
        published=[{**row, "responseId": 17, "kind": "reorged", "recordedAt": recorded_at}],
        late=[],
        rejected=[],
        outcomes=report.outcomes,
        chain=no_chain,
        terms=no_chain,
        decimals=6,
        earliest=None,
        highest=None,
        report=report,
    )
    assert report.exceptions == [
        f"EXCEPTION response 17 ({row['transactionHash']}): its block left the chain after resolution (reorged, "
        f"recorded {shown}); its payment is on chain as counted"
    ]
    what = f"the site's exception for response 17 ({row['transactionHash']})"
    expected = [f"{what}: its recordedAt {recorded_at!r} is not a time in Unix seconds"]
    assert report.differences == (expected if differs else [])


# --- Stakes paid by authorization (docs/protocol.md section 2a; tests/vectors.json, "authorization") ---


def test_the_authorization_constants_written_into_the_script(vectors):
    """No keccak in the standard library: the script writes the two event topics and the relayed
    call's selector in; they are keccak of the signatures the vectors name."""
    from eth_utils import keccak

    section = vectors["authorization"]
    assert v.AUTHORIZATION_USED_TOPIC == section["usedTopic"] == "0x" + keccak(text=section["usedEvent"]).hex()
    assert v.AUTHORIZATION_CANCELED_TOPIC == section["canceledTopic"]
    assert section["canceledTopic"] == "0x" + keccak(text=section["canceledEvent"]).hex()
    assert "0x" + v.TRANSFER_WITH_AUTHORIZATION_SELECTOR == section["selector"]
    assert section["selector"] == "0x" + keccak(text=section["function"])[:4].hex()


def _relayed(decoded: v.RelayedCall | None) -> dict | None:
    if decoded is None:
        return None
    return {
        "authorizer": decoded.authorizer,
        "recipient": decoded.recipient,
        "amountUnits": str(decoded.amount_units),
        "validAfter": decoded.valid_after,
        "validBefore": decoded.valid_before,
        "nonce": decoded.nonce,
        "challengeId": decoded.challenge_id,
    }


def test_relayed_calls_decode_to_their_words_or_to_nothing(vectors):
    for case in vectors["authorization"]["relayedCalls"]:
        assert _relayed(v.decode_relayed_call(case["data"])) == case["decoded"], case["about"]


def test_an_authorization_pairs_with_the_transfer_at_the_next_log_index(vectors):
    section = vectors["authorization"]
    for case in section["pairing"]:
        use = v.authorization_use(
            case["receipt"], usdc=section["usdc"], authorizer=case["authorizer"], nonce=case["nonce"]
        )
        found = (use and use.log_index, use and use.transfer and use.transfer.log_index)
        assert found == (case["used"], case["transfer"]), case["about"]


def _terms(window: dict) -> v.Terms:
    anchor = v.Anchor(
        registry="0x" + "00" * 20,
        transaction_hash="0x" + "00" * 32,
        block_number=window["anchorBlock"],
        log_index=0,
        solution_commitment="00" * 32,
        terms_hash="00" * 32,
        opens_at=window["opensAt"],
        threshold_m=0,
    )
    return v.Terms(
        challenge_id=7, solution="0, 0", threshold_m=0, start=window["start"], closed=window["closed"], anchor=anchor
    )


def test_the_rules_of_a_stake_paid_by_authorization_in_their_order(vectors):
    section = vectors["authorization"]
    for case in section["rules"]:
        claim = case["claim"]
        use = v.authorization_use(
            case["receipt"], usdc=section["usdc"], authorizer=claim["address"], nonce=claim["commitment"]
        )
        code = v.authorization_rule(
            use=use,
            cancelled=case["cancelled"],
            valid_before=claim["validBefore"],
            head_time=case["headTime"],
            address=claim["address"],
            stake_units=v.to_units(claim["stake"]),
            treasury=section["treasury"],
            mined=case["blockTime"] if use else None,
            terms=_terms(case["window"]),
        )
        assert code == case["code"], case["about"]
