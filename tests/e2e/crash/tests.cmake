# SPDX-License-Identifier: Apache-2.0
# kill -9 of apply at every change it sends, then undo (tests/e2e/crash/kill9_undo.sh).
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_kill9_undo
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kill9_undo.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_kill9_undo PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()
