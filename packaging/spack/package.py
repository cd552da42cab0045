# Spack package for sp: the static binary of the release archive, installed as it is (no
# compiler, no dependency). scripts/release.sh --pack writes this file to
# dist/spack/sp/package.py with the archives' sha256 in place of the @SHA256_…@ marks; see
# packaging/README.md. Copy it into a Spack repository as packages/sp/package.py.
import os
import platform

from spack.package import *  # noqa: F401,F403

try:  # Spack 1.0 and later keep the build systems in the builtin repository.
    from spack_repo.builtin.build_systems.generic import Package
except ImportError:  # Spack 0.x exports Package from spack.package.
    pass

# The archive for this machine: x86_64 or aarch64.
MACHINE = "aarch64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
SHA256 = {"x86_64": "@SHA256_x86_64@", "aarch64": "@SHA256_aarch64@"}


class Sp(Package):
    """sp merges scope-profiler's per-rank native traces into one HDF5 profile, and reads
    profiles: reports, comparisons, scaling studies, charts, a terminal UI and an offline
    HTML page. One static binary, with no Python and no libhdf5."""

    # The release archive is fetched by hand: run `spack install sp` in the directory that
    # holds it, or put it in a mirror (packaging/README.md).
    manual_download = True
    url = "file://{0}/sp-0.1.0-{1}-linux-musl.tar.gz".format(os.getcwd(), MACHINE)

    license("MIT OR Apache-2.0")

    version("0.1.0", sha256=SHA256[MACHINE], expand=True)

    # Where each file or directory of the archive goes under the prefix.
    archive_files = {
        "sp": "bin/sp",
        "sp.html": "share/sp/sp.html",
        "man/man1": "share/man/man1",
        "completions/sp.bash": "share/bash-completion/completions/sp",
        "completions/_sp": "share/zsh/site-functions/_sp",
        "completions/sp.fish": "share/fish/vendor_completions.d/sp.fish",
        "README.md": "share/doc/sp/README.md",
        "LICENSE-MIT": "share/doc/sp/LICENSE-MIT",
        "LICENSE-APACHE": "share/doc/sp/LICENSE-APACHE",
        "SHA256SUMS": "share/doc/sp/SHA256SUMS",
    }

    def install(self, spec, prefix):
        which("sha256sum")("--check", "--quiet", "SHA256SUMS")
        for src, dst in sorted(self.archive_files.items()):
            target = join_path(prefix, dst)
            if os.path.isdir(src):
                install_tree(src, target)
            else:
                mkdirp(os.path.dirname(target))
                install(src, target)
        set_executable(join_path(prefix, "bin/sp"))

    def setup_run_environment(self, env):
        # `sp report` finds the page here.
        env.set("SP_PAGE", join_path(self.prefix, "share/sp/sp.html"))

    @run_after("install")
    def check_version(self):
        version = Executable(join_path(self.prefix, "bin/sp"))("--version", output=str)
        if not version.startswith("sp {0} ".format(self.version)):
            raise InstallError("bin/sp --version says {0!r}".format(version))
