"""verify_challenge.py re-implements the pot's rules with the standard library only: it must agree with
the contract's interface, the server's rules and the shared vectors (tests/vectors.json, "verifier",
which frontend/src/lib/verify/verify.test.ts reads too), and its command line must refuse what it
cannot check before reading anything. Its checks of a site and a chain run on anvil in
chain/tests/verify/."""

from __future__ import annotations

import io
import json

import pytest
from eth_utils import keccak

import verify_challenge as v
from chain.node.contracts import load_artifact
from chain.pot import abi
from challenges import geometry
from challenges.commitments import terms_commitment

from .pot_vectors import commitment_inputs
from .verifier_vectors import build


def test_the_event_topics_and_selectors_written_in_are_the_contracts():
    assert {name: topic for topic, name in v.EVENT_TOPICS.items()} == {
        name: topic for name, topic in abi.TOPICS.items() if name != "Swept"
    }
    assert v.STATE_OF == "0x" + keccak(text="stateOf(uint256)")[:4].hex()
    assert v.TERMS_OF == "0x" + keccak(text="termsOf(uint256)")[:4].hex()
    assert v.SHARE_RECEIVER == "0x" + keccak(text="shareReceiver()")[:4].hex()
    pot_abi = {e.get("name"): e for e in load_artifact("GeopoemPot")["abi"]}
    (state,) = pot_abi["stateOf"]["outputs"]
    assert tuple(c["name"] for c in state["components"]) == v.STATE_FIELDS
    terms, digest = pot_abi["termsOf"]["outputs"]
    assert [c["name"] for c in terms["components"]] == [
        "solutionCommitment",
        "termsHash",
        "thresholdM",
        "opensAt",
        "closesAt",
        "solutionDeadline",
        "guessWindow",
        "minStake",
        "bond",
    ]
    assert digest["type"] == "bytes32" and terms["type"] == "tuple" and v.TERMS_TUPLE == abi.TERMS_TUPLE


def test_the_local_pin_is_the_pot_the_local_chain_deploys():
    """scripts/devchain.py deploys the pot through the CREATE2 factory on a fresh anvil: the token is
    the deployer's second contract, the operator the development key, the receivers anvil's account 9."""
    from chain.pot.deploy import initcode, pot_address

    # scripts/devchain.py's development operator (not one of anvil's accounts).
    dev_operator = "0xC2A009D8621D65B32456B4B18386229109cdaD21"

    code = initcode(
        token="0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
        operator=dev_operator,
        share_receiver="0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
        sweep_receiver="0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
    )
    # Deployed in block 4 on a fresh anvil: after the token's implementation, proxy and roles.
    assert v.PINNED_POTS[31337] == (pot_address(code), 4)


def test_without_a_pin_or_pot_it_cannot_run():
    with pytest.raises(v.Unavailable, match="no pot is pinned for chain 11155111 in this script: name it with --pot"):
        v.choose_pot(None, 11155111, {"potAddress": "0x" + "22" * 20, "potDeployBlock": 5})


def test_the_pot_and_the_block_to_read_from():
    pinned, block = v.PINNED_POTS[31337]
    site = {"potAddress": "0x" + "22" * 20, "potDeployBlock": 5}
    assert v.choose_pot(None, 31337, site) == (pinned.lower(), block)
    # Another pot: from the site's deploy block only when the site names that very pot.
    assert v.choose_pot("0x" + "22" * 20, 1, site) == ("0x" + "22" * 20, 5)
    assert v.choose_pot("0x" + "33" * 20, 1, site) == ("0x" + "33" * 20, 0)
    with pytest.raises(v.Unavailable, match="is not an address"):
        v.choose_pot("0x1234", 1, site)


def test_the_integer_rule_is_the_servers(vectors):
    g = vectors["geometry"]
    for case in g["sinMicro"]:
        angle = case["microDegrees"]
        assert v.sin_micro(angle) == geometry.sin_micro(angle) == int(case["sin"])
        assert v.cos_micro(angle) == int(case["cos"])
    for case in g["unitVector"]:
        expected = (int(case["x"]), int(case["y"]), int(case["z"]))
        assert v.unit_vector(case["latE6"], case["lonE6"]) == expected
    for case in g["thresholdChordSq"]:
        assert v.threshold_chord_sq(case["thresholdM"]) == int(case["chordSq"])
    for case in g["correct"]:
        guess, solution = v.micro_degrees(case["guess"]), v.micro_degrees(case["solution"])
        assert guess is not None and solution is not None
        assert v.is_correct(guess, solution, case["thresholdM"]) is case["correct"], case["about"]
    assert v.div_trunc(-7, 2) == -3 and v.div_trunc(7, -2) == -3 and v.div_trunc(-7, -2) == 3


def test_micro_degrees_are_computed_on_the_decimal_text(vectors):
    for case in vectors["geometry"]["microDegrees"]:
        assert v.micro_degrees(case["text"]) == (case["latE6"], case["lonE6"])
        assert v.text_from_micro(case["latE6"], case["lonE6"]) == case["text"]
    for case in vectors["coordinates"]["valid"]:
        point = v.micro_degrees(case["input"])
        assert point is not None and v.text_from_micro(*point) == case["canonical"]
    for text in vectors["coordinates"]["invalid"]:
        assert v.micro_degrees(text) is None, text


def test_the_commitments_and_the_terms_hash(vectors):
    section = vectors["potEncodings"]
    for case in section["guessCommitments"]:
        assert v.guess_commitment(**commitment_inputs(case)) == case["commitment"]
    for case in section["solutionCommitments"]:
        assert v.solution_commitment(**commitment_inputs(case)) == case["commitment"]
    for case in vectors["termsHashes"]:
        texts = {"title": case["poemTitle"], "poem": case["poemText"], "instructions": case["instructionsText"]}
        assert v.terms_hash(challenge_id=case["challengeId"], **texts) == case["termsSha256"]
        assert case["termsSha256"] == terms_commitment(
            challenge_id=case["challengeId"],
            poem_title=case["poemTitle"],
            poem_text=case["poemText"],
            instructions_text=case["instructionsText"],
        )


def test_the_verifier_vectors_are_what_their_definitions_give(vectors):
    """tests/verifier_vectors.py computes each expected value from the rule's definition (and the
    server's integer rule): the file holds exactly that."""
    assert vectors["verifier"] == json.loads(json.dumps(build()))


def test_the_winners_replayed_as_the_pot_keeps_them(vectors):
    for case in vectors["verifier"]["winners"]:
        amounts = {s["seq"]: int(s["amount"]) for s in case["stakes"]}
        best = v.Best()
        for reveal in case["reveals"]:
            best = v.keep_best(best, seq=reveal["seq"], amount=amounts[reveal["seq"]], correct=reveal["correct"])
        assert (best.earliest, best.highest) == (case["earliest"], case["highest"]), case["about"]
        assert best.highest_amount == (amounts[case["highest"]] if case["highest"] else 0)


def test_a_correct_guess_beats_the_winners_it_would_replace(vectors):
    for case in vectors["verifier"]["beats"]:
        b = case["best"]
        best = v.Best(earliest=b["earliest"], highest=b["highest"], highest_amount=int(b["highestAmount"]))
        assert v.beats(best, seq=case["seq"], amount=int(case["amount"])) == case["won"], case


def test_the_replay_of_a_challenges_logs(vectors):
    """Every rule the events break, in the order found, the winners, the refunds' order and the
    stateOf the head must answer, from the raw logs (tests/replay_vectors.py)."""
    from types import SimpleNamespace

    for case in vectors["verifier"]["replay"]:
        events = [v.decode_event(log) for log in case["logs"]]
        assert None not in events, case["about"]
        r = v.replay(events, chain_id=case["chainId"], pot=case["pot"], challenge_id=case["challengeId"])
        assert [{"seq": seq, "text": text} for seq, text in r.problems] == case["problems"], case["about"]
        assert (r.best.earliest, r.best.highest) == (case["earliest"], case["highest"]), case["about"]
        assert r.refund_order == case["refundOrder"], case["about"]
        ctx = SimpleNamespace(replay=r, chain=SimpleNamespace(head_time=case["headTime"]))
        state = v.replay_state(ctx)  # type: ignore[arg-type]
        assert {k: str(n) for k, n in state.items()} == case["state"], case["about"]


def test_the_sites_amounts_read_and_written(vectors):
    section = vectors["verifier"]["amounts"]
    for case in section["read"]:
        assert v.to_units(case["text"]) == (None if case["units"] is None else int(case["units"])), case
    for case in section["written"]:
        assert v.usdc(int(case["units"])) == case["text"], case


def test_a_difference_quotes_the_sites_values_as_python_does(vectors):
    """The script writes a value of the site's JSON with `!r`; the page copies it (lib/verify/report.ts)."""
    for case in vectors["verifier"]["quoted"]:
        assert f"{case['value']!r}" == case["text"], case


def test_the_verdicts(vectors):
    for case in vectors["verifier"]["verdicts"]:
        guess = (case["guess"]["latE6"], case["guess"]["lonE6"])
        solution = (case["solution"]["latE6"], case["solution"]["lonE6"])
        assert v.is_correct(guess, solution, case["thresholdM"]) is case["correct"], case["about"]
        if case["text"] is not None:
            assert v.micro_degrees(case["text"]) == guess


def test_the_split_and_the_bond_shares(vectors):
    for case in vectors["verifier"]["splits"]:
        assert v.split(int(case["pot"])) == (int(case["prize"]), int(case["share"]))
    for case in vectors["verifier"]["bondShares"]:
        refunds = [int(r) for r in case["refunds"]]
        shares = v.bond_shares(refunds, pot=int(case["pot"]), bond=int(case["bond"]))
        assert shares == [int(s) for s in case["shares"]], case["about"]


def test_next_page_links_stay_on_the_named_site():
    site = v.Site("https://geopoem.example/", timeout=1)
    link = v.next_link({"link": '<http://internal:8000/api/responses?cursor=abc&limit=1000>; rel="next"'})
    assert link is not None
    assert site.on_site(link) == "https://geopoem.example/api/responses?cursor=abc&limit=1000"
    assert v.next_link({}) is None


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_rewritten_in_place_on_a_terminal():
    stream = Terminal()
    show = v.progress_printer(stream)
    show("read 10 stakes")
    show("read 20 stakes")
    assert stream.getvalue() == "\rread 10 stakes\x1b[K\rread 20 stakes\x1b[K"


def test_into_a_file_the_progress_is_at_most_a_line_a_second():
    stream = io.StringIO()
    show = v.progress_printer(stream)
    for i in range(100):
        show(f"line {i}")
    assert stream.getvalue() == "line 0\n"


@pytest.mark.parametrize(
    "record",
    [
        "not json",
        json.dumps({"version": 1, "challengeId": 3}),
        json.dumps({"version": 2}),
        json.dumps([1, 2]),
    ],
)
def test_a_record_that_is_not_a_geopoem_record_is_refused_before_anything_is_read(tmp_path, capsys, record):
    path = tmp_path / "record.json"
    path.write_text(record)
    # The site and the node are not reachable: the record is refused first.
    assert v.main(["--site", "http://127.0.0.1:9", "--rpc", "http://127.0.0.1:9", "--record", str(path)]) == 2
    assert "could not verify:" in capsys.readouterr().err


def test_a_site_that_cannot_be_read_is_exit_status_2(capsys):
    assert v.main(["--site", "http://127.0.0.1:9", "--rpc", "http://127.0.0.1:9", "--challenge", "1", "--quiet"]) == 2
    assert "could not verify: GET http://127.0.0.1:9/" in capsys.readouterr().err


def test_a_challenge_or_a_record_is_needed(capsys):
    with pytest.raises(SystemExit) as exited:
        v.main(["--site", "http://127.0.0.1:9", "--rpc", "http://127.0.0.1:9"])
    assert exited.value.code == 2
    assert "--challenge or --record is needed" in capsys.readouterr().err


def test_the_page_pins_the_same_pots():
    """docs/protocol.md section 2: the pins of the script, of the page (frontend/src/config.ts) and of
    the protocol's table are one table."""
    import re
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "frontend" / "src" / "config.ts").read_text()
    table = source[source.index("export const PINNED_POTS") :]
    table = table[: table.index("};")]
    pot = r'\{ address: "(0x[0-9a-fA-F]{40})", deployBlock: (\d+) \}'
    # An entry is written in place or names a constant of the same file (LOCAL_POT).
    named = dict(
        (name, (address, int(block)))
        for name, address, block in re.findall(rf"export const (\w+): PinnedPot = {pot}", source)
    )
    page = {int(chain): (address, int(block)) for chain, address, block in re.findall(rf"(\d+): {pot}", table)}
    page |= {int(chain): named[name] for chain, name in re.findall(r"(\d+): (\w+),", table)}
    assert page, "no pin read from frontend/src/config.ts"
    assert page == v.PINNED_POTS
    protocol = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()
    for chain_id, (address, block) in v.PINNED_POTS.items():
        assert re.search(rf"\| {chain_id} \| `{address}` \| {block} \|", protocol), chain_id
