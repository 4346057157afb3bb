"""Numeric question generators backed by a small torch reference implementation."""
