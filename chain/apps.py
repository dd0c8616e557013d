from django.apps import AppConfig


class ChainConfig(AppConfig):
    name = "chain"
    verbose_name = "Chain"
