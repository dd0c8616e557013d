from django.core.management.base import BaseCommand

from responses.demo import seed_demo


class Command(BaseCommand):
    help = "Seed demonstration challenges (marked is_demo): one active, two resolved. Idempotent."

    def handle(self, *args, **options) -> None:
        for line in seed_demo():
            self.stdout.write(line)
