"""Hugging Face Hub models by id (`ORG/NAME[@revision]`): config.json and safetensors metadata, through
`huggingface_hub` (imported lazily), its standard cache, offline mode and the user's own login.

No Qt, no torch; imports only `gpu_advisor.core`.
"""

from gpu_advisor.hub.models import HubError, HubModel, looks_like_hub_id, parse_hub_id
from gpu_advisor.hub.resolve import fetch_model, search_models

__all__ = ["HubError", "HubModel", "fetch_model", "looks_like_hub_id", "parse_hub_id", "search_models"]
