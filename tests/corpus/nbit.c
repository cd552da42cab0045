/* Writes nbit.h5 with libhdf5's n-bit filter, then reads every dataset back through
 * libhdf5 and writes what it read to nbit.json ({"/name": [values]}). HDF5 2.0 (h5py)
 * refuses integers with padding bits, so this file comes from the C library instead:
 * make_corpus.py builds this with h5cc (libhdf5 1.10 from libhdf5-dev) and runs it. */
#include <hdf5.h>
#include <stdio.h>

#define N 100

static const char *NAMES[] = {"signed_12_bits", "signed_12_bits_at_4_be", "unsigned_7_bits"};

static void nbit_int(hid_t file, const char *name, hid_t base, size_t precision,
                     size_t offset, const int *data, hsize_t chunk) {
    hsize_t n = N;
    hid_t type = H5Tcopy(base);
    H5Tset_precision(type, precision);
    H5Tset_offset(type, offset);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_nbit(dcpl);
    hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "nbit.h5";
    const char *json = argc > 2 ? argv[2] : "nbit.json";
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int data[N];
    for (int i = 0; i < N; i++)
        data[i] = (i % 2 ? -1 : 1) * (i * 37 % 2000);
    nbit_int(file, NAMES[0], H5T_STD_I32LE, 12, 0, data, 16);
    nbit_int(file, NAMES[1], H5T_STD_I32BE, 12, 4, data, 16);
    for (int i = 0; i < N; i++)
        data[i] = i * 5 % 128;
    nbit_int(file, NAMES[2], H5T_STD_U16LE, 7, 3, data, 30);
    H5Fclose(file);

    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    FILE *out = fopen(json, "w");
    fputs("{", out);
    for (int k = 0; k < 3; k++) {
        hid_t d = H5Dopen2(file, NAMES[k], H5P_DEFAULT);
        H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
        H5Dclose(d);
        fprintf(out, "%s\"/%s\":[", k ? "," : "", NAMES[k]);
        for (int i = 0; i < N; i++)
            fprintf(out, "%s%d", i ? "," : "", data[i]);
        fputs("]", out);
    }
    fputs("}\n", out);
    fclose(out);
    H5Fclose(file);
    return 0;
}
