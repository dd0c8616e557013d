"""Mark the claims seed_demo made, rather than every claim of a demo challenge: the reorg re-check
skips only these, so real stakes on make run's active demo challenge are re-checked too."""

import hashlib

from django.db import migrations, models


def mark_seeded_claims(apps, schema_editor):
    # Claims seeded before this field existed: their made-up hashes are sha256("geopoem-demo|title|i")
    # (responses/demo.py), on demo challenges only. A real claim cannot carry one of them.
    Challenge = apps.get_model("challenges", "Challenge")
    Response = apps.get_model("responses", "Response")
    for challenge_id, title in Challenge.objects.filter(is_demo=True).values_list("pk", "poem_title"):
        hashes = ["0x" + hashlib.sha256(f"geopoem-demo|{title}|{i}".encode()).hexdigest() for i in range(100)]
        Response.objects.filter(challenge_id=challenge_id, transaction_hash__in=hashes).update(is_demo=True)


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0002_payout"),
        ("responses", "0003_claims_per_transaction"),
    ]

    operations = [
        migrations.AddField(
            model_name="response",
            name="is_demo",
            field=models.BooleanField(default=False, help_text="Seeded demonstration claim, never on a chain."),
        ),
        migrations.RunPython(mark_seeded_claims, migrations.RunPython.noop),
    ]
