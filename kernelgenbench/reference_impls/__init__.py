"""Pure-PyTorch references and input generators, one module per op family.

Every module here is self-contained (imports only torch, math and the standard library) because its source
text is embedded in published records and must run without this package.
"""
