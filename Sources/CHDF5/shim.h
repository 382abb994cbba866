#include <hdf5.h>
// The H5T_NATIVE_* and other id/flag macros expand to function calls plus globals (or casts) that
// Swift cannot import as constants; these inline accessors give Swift the same values.
static inline hid_t foldkit_h5t_native_float(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t foldkit_h5t_native_double(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t foldkit_h5t_native_int64(void) { return H5T_NATIVE_INT64; }
static inline hid_t foldkit_h5t_c_s1(void) { return H5T_C_S1; }
static inline hid_t foldkit_h5p_default(void) { return H5P_DEFAULT; }
static inline hid_t foldkit_h5s_all(void) { return H5S_ALL; }
static inline hid_t foldkit_h5e_default(void) { return H5E_DEFAULT; }
static inline unsigned foldkit_h5f_acc_rdonly(void) { return H5F_ACC_RDONLY; }
static inline size_t foldkit_h5t_variable(void) { return H5T_VARIABLE; }

// The type of the link `name` (a path) at `loc` (H5L_TYPE_HARD, _SOFT, _EXTERNAL, ...), or -1. H5Lget_info
// and H5L_info_t name the 1.10 and the 1.12+ API alike through libhdf5's version macros.
static inline int foldkit_h5_link_type(hid_t loc, const char *name) {
    H5L_info_t info;
    if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0) return -1;
    return (int)info.type;
}
static inline int foldkit_h5l_type_external(void) { return (int)H5L_TYPE_EXTERNAL; }

// Where a dataset keeps its values: 0 in this file with libhdf5's own filters (deflate, shuffle,
// fletcher32, szip, nbit, scaleoffset), 1 in external files (H5Pset_external), 2 a virtual dataset,
// 3 a filter of another id (user-defined plugins, loaded from disk), -1 if the layout cannot be read.
static inline int foldkit_h5_dataset_storage(hid_t dataset) {
    hid_t dcpl = H5Dget_create_plist(dataset);
    if (dcpl < 0) return -1;
    int result = 0;
    if (H5Pget_external_count(dcpl) > 0) {
        result = 1;
    } else if (H5Pget_layout(dcpl) == H5D_VIRTUAL) {
        result = 2;
    } else {
        int filters = H5Pget_nfilters(dcpl);
        for (int i = 0; i < filters && result == 0; i++) {
            unsigned flags = 0;
            size_t count = 0;
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &count, NULL, 0, NULL, NULL);
            if (id < 0 || id > H5Z_FILTER_SCALEOFFSET) result = 3;
        }
    }
    H5Pclose(dcpl);
    return result;
}

// The bytes of a dataset's contiguous storage: its address (relative to the superblock, as HDF5
// addresses are) and size. Returns 0 when the dataset is contiguous and allocated, -1 otherwise (compact
// values live in the object header; chunked ones in chunks).
static inline int foldkit_h5_contiguous_storage(hid_t dataset, unsigned long long *address, unsigned long long *size) {
    haddr_t offset = H5Dget_offset(dataset);
    if (offset == HADDR_UNDEF) return -1;
    *address = (unsigned long long)offset;
    *size = (unsigned long long)H5Dget_storage_size(dataset);
    return 0;
}

// The superblock's size in bytes (it starts at address 0), or 0 if libhdf5 cannot tell.
static inline unsigned long long foldkit_h5_superblock_size(hid_t file) {
    H5F_info2_t info;
    if (H5Fget_info2(file, &info) < 0) return 0;
    return (unsigned long long)info.super.super_size;
}
