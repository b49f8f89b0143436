# SPDX-License-Identifier: Apache-2.0
# fakekube's cluster simulation driven by real kubectl: the runbook incident, time-slicing
# enabled by kubectl commands, rollouts, taints (sim_incident.sh).
if(TARGET fakekube)
  find_program(GPUSLICE_SIM_KUBECTL kubectl)
  if(GPUSLICE_SIM_KUBECTL)
    file(REAL_PATH ${GPUSLICE_SIM_KUBECTL} sim_kubectl_real)
    get_filename_component(sim_kubectl_dir ${sim_kubectl_real} DIRECTORY)
    # 1.30 sends JSON bodies; 1.33 sends `create configmap` as protobuf.
    foreach(version IN ITEMS 1.30 1.33)
      string(REPLACE "." "_" suffix ${version})
      set(name e2e_sim_incident)
      if(NOT version STREQUAL "1.30")
        set(name e2e_sim_incident_kubectl_${suffix})
      endif()
      add_test(NAME ${name}
        COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sim_incident.sh
          --kubectl ${sim_kubectl_dir}/kubectl.${version} --fakekube $<TARGET_FILE:fakekube>
          --scenario ${PROJECT_SOURCE_DIR}/tests/fixtures/scenarios/eks-gpu-incident-sim.yaml)
      set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "e2e;sim")
    endforeach()
  endif()
endif()
