"""The LLM layer: the `LLM` protocol, the one OpenAI-compatible client (the only module importing `openai`),
its answer cache, JSON repair for replies, and every prompt as a file."""

from graphwright.errors import LLMError
from graphwright.llm.base import (
    LLM,
    ChatDelta,
    ChatResult,
    MeteredLLM,
    StreamingLLM,
    Tool,
    ToolCall,
    ToolCallingLLM,
    ToolTurn,
    Usage,
)
from graphwright.llm.client import LLMClient, LLMEmptyAnswerError, LLMNotConfiguredError

__all__ = [
    "LLM",
    "ChatDelta",
    "ChatResult",
    "LLMClient",
    "LLMEmptyAnswerError",
    "LLMError",
    "LLMNotConfiguredError",
    "MeteredLLM",
    "StreamingLLM",
    "Tool",
    "ToolCall",
    "ToolCallingLLM",
    "ToolTurn",
    "Usage",
]
