// SPDX-License-Identifier: Apache-2.0
// Self-signed EC certificates and keys (made once with `openssl req -x509 -newkey ec
// -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500`) for tests that need material the
// kubeconfig loader accepts as PEM. Test-only: nothing served is signed by them.
#pragma once

namespace kube_test {

inline constexpr const char* k_prod_certificate_pem = R"(-----BEGIN CERTIFICATE-----
MIIBkTCCATegAwIBAgIURhtz19y5GFrl30CXmY6DubeEP5MwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSZ3B1c2xpY2UtdGVzdC1wcm9kMCAXDTI2MTIwMzEzMDE1MFoY
DzIxMjYxMTA5MTMwMTUwWjAdMRswGQYDVQQDDBJncHVzbGljZS10ZXN0LXByb2Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATEfqvycegJmSETV32/9PYSAtWQQ1jN
4ulFCwB1CSYW9uv4FOn0lulL3Dh/P6p8NtzwqQX5R7MDTAxXWIZQbl75o1MwUTAd
BgNVHQ4EFgQUlcsta8Hx4qvwRRYIY02tnfjD5igwHwYDVR0jBBgwFoAUlcsta8Hx
4qvwRRYIY02tnfjD5igwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBF
AiArLAOWAHT2QiW55kSUDbmMJ4PTYXhIvwMSZi22WPvTbgIhAJttdxWf8Zeo2M3K
YNJkCptC/OeA+pKqUahJHzF20VXB
-----END CERTIFICATE-----
)";
inline constexpr const char* k_file_certificate_pem = R"(-----BEGIN CERTIFICATE-----
MIIBkTCCATegAwIBAgIUPxXTsz3qQGuHdaapMfn8+66KiwEwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSZ3B1c2xpY2UtdGVzdC1maWxlMCAXDTI2MTIwMzEzMDE1MFoY
DzIxMjYxMTA5MTMwMTUwWjAdMRswGQYDVQQDDBJncHVzbGljZS10ZXN0LWZpbGUw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAS1cy3lqzodNXMpkAQE8vo65V2bMHAA
zjnk3X2x4klH6nnb7RLQHFTUgDnk7kS+ouxIeOdjW9NMwzCKEnC4H970o1MwUTAd
BgNVHQ4EFgQUGQmG8I5PdnIhZZqZyEUaSu03Y1QwHwYDVR0jBBgwFoAUGQmG8I5P
dnIhZZqZyEUaSu03Y1QwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBF
AiA/2uGHAn8qwjVMv+vY8Bu13L71gOIJ9bz7urp9/MbKaAIhAKBKXcPfOypyeyFI
zTNg8SNM030NSdCpX1JwtIALQnT1
-----END CERTIFICATE-----
)";
inline constexpr const char* k_user_certificate_pem = R"(-----BEGIN CERTIFICATE-----
MIIBkTCCATegAwIBAgIUS5iSAvUk+P5YIG/1DvGYowFqxdAwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSZ3B1c2xpY2UtdGVzdC11c2VyMCAXDTI2MTIwMzEzMDE1MFoY
DzIxMjYxMTA5MTMwMTUwWjAdMRswGQYDVQQDDBJncHVzbGljZS10ZXN0LXVzZXIw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQqRfyGwcXk3LgQeog8FjS5SUTMLt4M
ApWPWunCwwrC0pSKJU8DJtJfl/mwl1uhYz/xc1zP60EbvPNRnZZtBzilo1MwUTAd
BgNVHQ4EFgQU36X8LpG2mecYT6PYUIXMQNwoSVgwHwYDVR0jBBgwFoAU36X8LpG2
mecYT6PYUIXMQNwoSVgwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBF
AiEAihU929V9QLNa37Vn0yKkuhCjalBjpXMTgpORQpCpFs4CIBxSDkUcYtp/0qgr
J/gafggWAeLZeindnoA+NXi+HIos
-----END CERTIFICATE-----
)";
inline constexpr const char* k_user_key_pem = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgvX4so8fg6OgNeyHu
jGC4nSEQqBbpOLMT/3EqhbB7v+ihRANCAAQqRfyGwcXk3LgQeog8FjS5SUTMLt4M
ApWPWunCwwrC0pSKJU8DJtJfl/mwl1uhYz/xc1zP60EbvPNRnZZtBzil
-----END PRIVATE KEY-----
)";
inline constexpr const char* k_file_key_pem = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnNs8udBKs9fLoX7w
z3rhxPOvsuTDHToSBKYRFuRhBRihRANCAAS1cy3lqzodNXMpkAQE8vo65V2bMHAA
zjnk3X2x4klH6nnb7RLQHFTUgDnk7kS+ouxIeOdjW9NMwzCKEnC4H970
-----END PRIVATE KEY-----
)";

} // namespace kube_test
