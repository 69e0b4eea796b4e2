"""Builds the Cython kernels in ext/ into the solver package.

The production kernels live in one extension module, ``solver._kernels``, so that they
share the board tables and can inline each other's ``nogil`` functions; ``ext/kernels.pyx``
includes one ``.pxi`` file per concept (move generation, indexing, ...).  The oracle of
the verification stage is its own module, ``solver.verify._oracle`` (``ext/oracle.pyx``),
which compiles in only the board tables and the move generator.
"""

import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["-O3", "-fopenmp"]
link_args = ["-fopenmp"]
if os.environ.get("MUEHLE_NATIVE", "1") == "1" and sys.platform.startswith("linux"):
    compile_args.append("-march=native")

extensions = [
    Extension(
        name,
        [source],
        include_dirs=[numpy.get_include(), "ext"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name, source in [("solver._kernels", "ext/kernels.pyx"),
                         ("solver.verify._oracle", "ext/oracle.pyx")]
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
        include_path=["ext"],
    )
)
