// SPDX-License-Identifier: Apache-2.0
// Whether kubeconfig certificate and key material parses, so a file that is not PEM is refused
// when the kubeconfig is loaded (naming the entry and field) rather than at the first request.
#pragma once

#include <string_view>

namespace gpuslice::kube {

// At least one X.509 certificate in PEM form (client-go's CA pool and client cert need one).
bool holds_pem_certificate(std::string_view text);
// An unencrypted private key in PEM form (PKCS#8, RSA or EC), as tls.X509KeyPair reads it.
bool holds_pem_private_key(std::string_view text);

} // namespace gpuslice::kube
