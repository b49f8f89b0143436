# SPDX-License-Identifier: Apache-2.0
# fakekube's API layer (transport-free): store, discovery, verbs, selectors, paging, watch,
# patches, RBAC.
set(FAKEKUBE_API_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/api.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/api_state.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apply.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/create.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/defaults.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/delete.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/discovery.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/fieldset.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/list_query.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/object_meta.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/paging.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/patch.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/patch_strategic.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/protobuf.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/protobuf_object.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/protobuf_schema.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/rbac.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/read.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/resources.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/reviews.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/selectors.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/status_errors.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/store.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/table.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/table_printers.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/target.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/update.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/watch.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/yaml_json.cpp
)
# The cluster simulation (fakekube/simulation.hpp): controllers stepped by Simulation::tick.
file(GLOB FAKEKUBE_SIM_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/sim/*.cpp)
list(APPEND FAKEKUBE_API_SOURCES ${FAKEKUBE_SIM_SOURCES})
