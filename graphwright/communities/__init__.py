"""Hierarchical communities over the entity graph and their reports."""
