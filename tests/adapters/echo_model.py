"""A local model for real Agents SDK runs in tests and in live_agents.py (no network, no key)."""

from __future__ import annotations

import agents


class EchoModel(agents.Model):
    """A model that answers with what it was given (the package offers no fake one): enough for a real
    Runner to read the session's history, call the model and write the turn back."""

    def __init__(self):
        self.inputs = []

    async def get_response(self, system_instructions, input, *args, **kwargs):
        from openai.types.responses import ResponseOutputMessage, ResponseOutputText
        self.inputs.append(input)
        text = f"heard {len(input)} items"
        return agents.ModelResponse(
            output=[ResponseOutputMessage(id=f"msg_{len(self.inputs)}", type="message", role="assistant",
                                          status="completed",
                                          content=[ResponseOutputText(type="output_text", text=text, annotations=[])])],
            usage=agents.Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError
