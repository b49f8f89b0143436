# SPDX-License-Identifier: Apache-2.0
# apply and undo under crashes and concurrent writers: kill -9 at every change, then undo
# (kill9_undo.sh); another writer changing the same nodes and Deployment (concurrent_writer.sh).
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_kill9_undo
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kill9_undo.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_kill9_undo PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()
if(TARGET fakekube AND TARGET kubectl-gpuslice)
  add_test(NAME e2e_concurrent_writer
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/concurrent_writer.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_concurrent_writer PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "e2e")
endif()
