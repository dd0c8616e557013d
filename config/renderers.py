from rest_framework.renderers import JSONRenderer


class NullableJSONRenderer(JSONRenderer):
    """DRF renders a None body as empty bytes; the API answers a JSON `null` instead
    (GET /api/challenges/active when there is no active challenge)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if data is None and (response is None or response.status_code != 204):
            return b"null"
        return super().render(data, accepted_media_type, renderer_context)
