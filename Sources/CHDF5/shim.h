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
