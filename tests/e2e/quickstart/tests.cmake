# SPDX-License-Identifier: Apache-2.0
# The README's quick start: its commands are what .ci/run runs (drift check), and its demo
# runs, with kubectl and without.
add_test(NAME quickstart_drift
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drift.sh --self-test
    --readme ${PROJECT_SOURCE_DIR}/README.md --ci ${PROJECT_SOURCE_DIR}/.ci/run)
set_tests_properties(quickstart_drift PROPERTIES TIMEOUT 30 LABELS "quickstart")
if(TARGET kubectl-gpuslice AND TARGET fakekube)
  add_test(NAME e2e_quickstart_demo
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/demo_runs.sh --source ${PROJECT_SOURCE_DIR}
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>)
  set_tests_properties(e2e_quickstart_demo PROPERTIES TIMEOUT 300 LABELS "e2e;quickstart")
endif()
