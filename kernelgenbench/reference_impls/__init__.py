"""Pure-PyTorch references and input generators, one module (or small package) per op family.

Modules here import only torch, math, the standard library and each other: a record's text is built from
them by `inline.build_text` (its reference and generator with exactly the definitions they reach, imports
of other reference modules replaced by those definitions), so it runs without this package.
"""
