# SPDX-License-Identifier: Apache-2.0
# apply / undo against a fakekube process on the EKS incident (tests/e2e/remedy/apply_undo.sh).
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_remedy_apply_undo
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/apply_undo.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_remedy_apply_undo PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()

# The Done-when sequence under `fakekube --simulate` (tests/e2e/remedy/sim_apply.sh), one test
# per variant of the plugin install and per failure mode.
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  foreach(variant IN ITEMS helm static replace operator rbac fault sigint smoke gfd gfd_stale gfd_running)
    add_test(NAME e2e_remedy_sim_apply_${variant}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sim_apply.sh
        --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
        --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident-sim.yaml --case ${variant})
    set_tests_properties(e2e_remedy_sim_apply_${variant} PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS "e2e")
  endforeach()
endif()

# --installer helm with a stand-in helm that records its argv (tests/e2e/remedy/helm_installer.sh
# says what that does and does not prove).
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_remedy_helm_installer
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/helm_installer.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_remedy_helm_installer PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()

# Issue 23: bare verify after apply; verify --smoke killed with SIGKILL, then undo --smoke
# (tests/e2e/remedy/verify_defaults.sh).
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_remedy_verify_defaults
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/verify_defaults.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident-sim.yaml)
  set_tests_properties(e2e_remedy_verify_defaults PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()
