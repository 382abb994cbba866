// OpenSSL's libcrypto (Debian: libssl-dev), for SHA-256 on Linux through the EVP digest API, which is
// the one OpenSSL 3 does not deprecate (SHA256_Init/Update/Final are). Used by FoldKitBlobFormat's
// PlatformSHA256 only; Apple platforms use CryptoKit instead.
#include <openssl/evp.h>
