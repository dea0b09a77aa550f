"""pytorch_at_its_best.py: the setup the comparison scripts give PyTorch, as
../shared/bench/pytorch_anchor does: Debian's torch does its float matmuls through libblas.so.3,
and the OpenMP build of OpenBLAS (apt-get install libopenblas0-openmp), chosen through
LD_LIBRARY_PATH, shares torch's OpenMP threads instead of oversubscribing the cores."""
import os
import sysconfig


def openmp_openblas_env(env=None):
    """A copy of env (default: os.environ) with LD_LIBRARY_PATH led by the OpenMP OpenBLAS folder,
    or None (after a warning) when that package is missing."""
    env = dict(os.environ if env is None else env)
    d = f"/usr/lib/{sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu'}/openblas-openmp"
    if not os.path.isdir(d):
        print(f"warning: no {d}: PyTorch is not at its best here "
              "(apt-get install libopenblas0-openmp)", flush=True)
        return None
    if d not in env.get("LD_LIBRARY_PATH", "").split(":"):
        env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def loaded_blas():
    """The BLAS libraries this process has mapped (call after torch ran a matmul)."""
    with open("/proc/self/maps") as f:
        return sorted({l.split()[-1] for l in f if "blas" in l and l.split()[-1].startswith("/")})


def is_reference_blas(paths):
    """Whether the paths include Debian's unoptimised reference BLAS (/usr/lib/.../blas/)."""
    return any("/blas/" in p for p in paths)
