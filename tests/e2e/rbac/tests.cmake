# SPDX-License-Identifier: Apache-2.0
# packaging/rbac ClusterRoles against fakekube's RBAC.
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_rbac_diagnose
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rbac_diagnose.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml
      --rbac ${PROJECT_SOURCE_DIR}/packaging/rbac)
  set_tests_properties(e2e_rbac_diagnose PROPERTIES TIMEOUT 120 LABELS "e2e")
endif()
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_rbac_apply
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rbac_apply.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml
      --rbac ${PROJECT_SOURCE_DIR}/packaging/rbac)
  set_tests_properties(e2e_rbac_apply PROPERTIES TIMEOUT 120 LABELS "e2e")
endif()
