from django.apps import AppConfig


class ResponsesConfig(AppConfig):
    name = "responses"
    verbose_name = "Responses"
