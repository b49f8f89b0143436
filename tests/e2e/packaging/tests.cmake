# SPDX-License-Identifier: Apache-2.0
# Packages, install layout, man page, krew manifest; shell completion through bash and kubectl.
# Not in sanitizer builds: their binary needs libasan/libubsan, which no package should.
if(TARGET kubectl-gpuslice AND NOT GPUSLICE_SANITIZE)
  add_test(NAME e2e_packaging
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/packaging.sh --build ${CMAKE_BINARY_DIR} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(e2e_packaging PROPERTIES TIMEOUT 300 LABELS "e2e;packaging")
endif()
if(TARGET kubectl-gpuslice AND TARGET fakekube)
  add_test(NAME e2e_completion
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/completion.sh
      --gpuslice $<TARGET_FILE:kubectl-gpuslice> --fakekube $<TARGET_FILE:fakekube>
      --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident.yaml)
  set_tests_properties(e2e_completion PROPERTIES TIMEOUT 120 LABELS "e2e")
endif()
