"""`gpu-advisor plan` flags a buyer uses: owning the machines, and the JSON fields they read."""

import json

from gpu_advisor.cli import run_cli


def _json(capsys, *argv):
    assert run_cli(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_own_machines_prices_the_cards_only(capsys):
    argv = ("--model", "llama-3-8b", "--gpu", "nvidia-rtx-3060-12gb", "--precision", "int4", "--buy")
    bought = _json(capsys, *argv)["options"][0]
    owned = _json(capsys, *argv, "--own-machines")["options"][0]
    assert owned["purchase_usd"] == 329
    assert bought["purchase_usd"] > owned["purchase_usd"]
    assert (owned["machines"], owned["gpus_per_machine"], owned["machine"]) == (1, 1, "desktop")
