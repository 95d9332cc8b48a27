"""Knowledge bases beyond this workspace: other workspaces of this database, other graphwright servers, Dify
datasets and any service speaking Dify's external-knowledge API. Each is a `KnowledgeSource` (knowledge/base.py)
of a kind registered in knowledge/registry.py, named in a TOML file (knowledge/config.py). The agent gets a
search and a document tool per source (search/knowledge_tools.py); the `federated` mode fuses them by rank."""

from graphwright.knowledge.base import KnowledgeSource, SourceDocument, SourcePassage
from graphwright.knowledge.config import KnowledgeBaseSpec
from graphwright.knowledge.registry import load_knowledge_bases

__all__ = ["KnowledgeBaseSpec", "KnowledgeSource", "SourceDocument", "SourcePassage", "load_knowledge_bases"]
