// SPDX-License-Identifier: Apache-2.0
// Runs exec credential plugins: fork + execve with an argv, never through a shell.
#include <cerrno>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/seams.hpp>

namespace gpuslice::kube {

namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw RuntimeError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  return {fds[0], fds[1]};
}

// Reads stdout and stderr together so a chatty plugin cannot block on a full pipe.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_count = (out_fd >= 0 ? 1 : 0) + (err_fd >= 0 ? 1 : 0); // poll ignores fd -1
  char buffer[4096];
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? out : err).append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

// PATH lookup in the child's environment (which is ours plus the kubeconfig's env entries).
std::optional<std::string> find_executable(const ProcessSpec& spec) {
  if (spec.command.find('/') != std::string::npos) {
    return spec.command;
  }
  std::string path_list = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& [name, value] : spec.env) {
    if (name == "PATH") {
      path_list = value;
    }
  }
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) {
      end = path_list.size();
    }
    const std::string folder = end == start ? "." : path_list.substr(start, end - start);
    const std::string candidate = folder + "/" + spec.command;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

class SystemProcessRunner final : public ProcessRunner {
public:
  ProcessResult run(const ProcessSpec& spec) override {
    const std::optional<std::string> executable = find_executable(spec);
    if (!executable) {
      ProcessResult missing;
      missing.not_found = true;
      missing.exit_code = 127;
      return missing;
    }
    std::vector<std::string> env_strings;
    for (const auto& [name, value] : spec.env) {
      env_strings.push_back(name + "=" + value);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(spec.command.c_str()));
    for (const std::string& arg : spec.args) {
      argv.push_back(const_cast<char*>(arg.c_str()));
    }
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& entry : env_strings) {
      envp.push_back(entry.data());
    }
    envp.push_back(nullptr);

    const Pipe out = make_pipe();
    const Pipe err = make_pipe();
    const Pipe exec_status = make_pipe(); // carries errno if execve fails; EOF on success
    const pid_t pid = ::fork();
    if (pid < 0) {
      throw RuntimeError(std::string("cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // Child: only async-signal-safe calls from here on.
      if (!spec.connect_stdin) {
        const int null_fd = ::open("/dev/null", O_RDONLY);
        ::dup2(null_fd, 0);
      }
      ::dup2(out.write_end, 1);
      // An interactive plugin prompts on stderr: it goes to the user's terminal, as in
      // client-go. Otherwise it is captured for the error message.
      if (!spec.connect_stdin) {
        ::dup2(err.write_end, 2);
      }
      ::execve(executable->c_str(), argv.data(), envp.data());
      const int code = errno;
      [[maybe_unused]] const ssize_t ignored = ::write(exec_status.write_end, &code, sizeof code);
      ::_exit(127);
    }
    ::close(out.write_end);
    ::close(err.write_end);
    if (spec.connect_stdin) {
      ::close(err.read_end);
    }
    ::close(exec_status.write_end);
    ProcessResult result;
    int exec_errno = 0;
    const bool exec_failed = ::read(exec_status.read_end, &exec_errno, sizeof exec_errno) ==
                             static_cast<ssize_t>(sizeof exec_errno);
    ::close(exec_status.read_end);
    drain(out.read_end, spec.connect_stdin ? -1 : err.read_end, result.out, result.err);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (exec_failed) {
      result.not_found = true;
      result.exit_code = 127;
      result.err = std::strerror(exec_errno);
    } else if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.exit_code = 128 + WTERMSIG(status);
    }
    return result;
  }
};

} // namespace

ProcessRunner& system_process_runner() {
  static SystemProcessRunner runner;
  return runner;
}

} // namespace gpuslice::kube
