# SPDX-License-Identifier: Apache-2.0
# fakekube's cluster simulation driven by real kubectl: the runbook incident, time-slicing
# enabled by kubectl commands, rollouts, taints (sim_incident.sh).
if(TARGET fakekube)
  find_program(GPUSLICE_SIM_KUBECTL kubectl)
  if(GPUSLICE_SIM_KUBECTL)
    file(REAL_PATH ${GPUSLICE_SIM_KUBECTL} sim_kubectl_real)
    get_filename_component(sim_kubectl_dir ${sim_kubectl_real} DIRECTORY)
    add_test(NAME e2e_sim_incident
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sim_incident.sh
        --kubectl ${sim_kubectl_dir}/kubectl.1.30 --fakekube $<TARGET_FILE:fakekube>
        --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident-sim.yaml)
    set_tests_properties(e2e_sim_incident PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "e2e;sim")
  endif()
endif()
