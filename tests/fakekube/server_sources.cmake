# SPDX-License-Identifier: Apache-2.0
# fakekube's HTTPS server: TLS material, authentication, transport faults, request log,
# scenario files and kubeconfigs around the API layer (api_sources.cmake).
set(FAKEKUBE_SERVER_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/tls.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/auth.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/request_log.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/scenario.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/scenario_yaml.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/kubeconfig.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/server.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/server_faults.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/server_response.cpp
)
