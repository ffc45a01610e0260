"""Trace real architectures' aten calls (on the meta device) and the committed summary of them."""
