"""Rewrites a profile with this interpreter's libhdf5 and a chosen file-format bound, for
the version matrix (tests/version_matrix.rs): every group, dataset (same datatype, shape,
chunking, filters) and attribute (same datatype) of SRC, recreated in DST.

    rewrite_libver.py earliest|latest OUTDIR SRC...   writes OUTDIR/0.h5, 1.h5, ... in order
"""

import sys

import h5py


def copy_attrs(src, dst):
    for name in src.attrs:
        attr = src.attrs.get_id(name)
        dst.attrs.create(name, src.attrs[name], shape=attr.shape, dtype=attr.dtype)


def copy_group(src, dst):
    copy_attrs(src, dst)
    for name, obj in src.items():
        if isinstance(obj, h5py.Group):
            copy_group(obj, dst.create_group(name))
        else:
            kwargs = {}
            if obj.chunks is not None:
                kwargs.update(chunks=obj.chunks, maxshape=obj.maxshape, shuffle=obj.shuffle)
                if obj.compression:
                    kwargs.update(compression=obj.compression,
                                  compression_opts=obj.compression_opts)
            ds = dst.create_dataset(name, shape=obj.shape, dtype=obj.dtype, **kwargs)
            if obj.size:
                ds[...] = obj[()]
            copy_attrs(obj, ds)


if __name__ == "__main__":
    libver, outdir, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    for i, src in enumerate(sources):
        with h5py.File(src, "r") as s, h5py.File(f"{outdir}/{i}.h5", "w", libver=libver) as d:
            copy_group(s, d)
