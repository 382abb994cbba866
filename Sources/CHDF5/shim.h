#include <hdf5.h>
// The H5T_NATIVE_* macros expand to function calls plus globals that Swift cannot import as
// constants; these inline accessors give Swift the same type ids.
static inline hid_t foldkit_h5t_native_float(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t foldkit_h5t_native_double(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t foldkit_h5t_native_int64(void) { return H5T_NATIVE_INT64; }
static inline hid_t foldkit_h5t_c_s1(void) { return H5T_C_S1; }
static inline hid_t foldkit_h5p_default(void) { return H5P_DEFAULT; }
static inline hid_t foldkit_h5s_all(void) { return H5S_ALL; }
