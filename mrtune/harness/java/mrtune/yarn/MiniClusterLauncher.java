package mrtune.yarn;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Hadoop's own mini-cluster as mrtune's YARN referee: MiniDFSCluster (NameNode + N DataNodes)
 * and MiniMRYarnCluster (ResourceManager, N NodeManagers with the ShuffleHandler, and the
 * JobHistory server), the setup of Hadoop's TestMRJobs. It runs ONE job client in a child JVM
 * (as {@code hadoop jar} would: the job's classes on its classpath, the cluster's addresses in
 * a {@code core-site.xml}), copies out the {@code .jhist} and {@code _conf.xml} the job wrote to
 * the history done dirs, and stops every daemon; the NodeManagers' stop kills their containers.
 *
 * <pre>
 * MiniClusterLauncher --work DIR [--datanodes 3] [--block-size BYTES] [--replication 2]
 *     [--nodemanagers 2] [--nm-memory-mb 1024] [--nm-vcores 2] [--conf k=v]...
 *     [--put LOCAL=HDFS]... [--client-opts "-Xmx256m"] [--timeout-s 900]
 *     --job-jar JAR (--main CLASS -- JOB ARGS... | --jobs FILE)
 * </pre>
 *
 * Writes {@code DIR/launcher.json} (timings, exit code, the copied histories).
 *
 * <p>{@code --jobs FILE} runs many jobs on ONE cluster, one after another: a fidelity matrix
 * would otherwise pay the cluster's start (tens of seconds of CPU) once per run. Each line of
 * the file is {@code LABEL TAB MAIN-CLASS TAB ARG TAB ARG...}; job {@code LABEL} logs to
 * {@code DIR/jobs/LABEL/client.log}, its history pair is copied to {@code DIR/jobs/LABEL/} and
 * its figures are written to {@code DIR/jobs/LABEL/job.json} as soon as it ends, so a reader
 * can follow progress and an interrupted matrix keeps what finished. A failed job does not stop
 * the others.
 */
public final class MiniClusterLauncher {
  private MiniClusterLauncher() {}

  private static MiniDFSCluster dfs;
  private static MiniMRYarnCluster yarn;
  private static Process client;

  public static void main(String[] argv) throws Exception {
    Options o = Options.parse(argv);
    Runtime.getRuntime().addShutdownHook(new Thread(MiniClusterLauncher::stopAll));
    Map<String, Object> out = new TreeMap<>();
    int rc;
    try {
      rc = run(o, out);
    } catch (Throwable e) {
      // Throwable, not Exception: a missing class (NoClassDefFoundError) must stop the
      // cluster too, or the DataNodes' non-daemon threads keep this JVM alive.
      out.put("error", e.toString());
      e.printStackTrace();
      rc = 3;
    }
    long t0 = System.nanoTime();
    stopAll();
    out.put("stop_s", (System.nanoTime() - t0) / 1e9);
    out.put("container_processes_killed", reapContainers(o.work));
    out.put("launcher_cpu_s", cpuSeconds());
    out.put("exit_code", rc);
    writeJson(new File(o.work, "launcher.json"), out);
    System.exit(rc);
  }

  private static int run(Options o, Map<String, Object> out) throws Exception {
    File conf = new File(o.work, "client-conf");
    File history = new File(o.work, "history");
    conf.mkdirs();
    history.mkdirs();
    long t0 = System.nanoTime();
    Configuration c = clusterConf(o);
    dfs = new MiniDFSCluster.Builder(c).numDataNodes(o.datanodes).format(true).build();
    dfs.waitActive();
    FileSystem fs = dfs.getFileSystem();
    c.set("fs.defaultFS", fs.getUri().toString());
    out.put("hdfs_start_s", (System.nanoTime() - t0) / 1e9);
    yarn = new MiniMRYarnCluster("mrtune", o.nodeManagers);
    yarn.init(c);
    yarn.start();
    Configuration live = yarn.getConfig();
    out.put("cluster_start_s", (System.nanoTime() - t0) / 1e9);
    out.put("cluster_start_cpu_s", cpuSeconds());
    for (String[] p : o.puts) {
      fs.copyFromLocalFile(false, true, new Path(p[0]), new Path(p[1]));
    }
    writeClientConf(live, conf);
    if (o.jobsFile != null) {
      return runJobs(o, conf, fs, live, out);
    }
    long t1 = System.nanoTime();
    int rc = runClient(o, o.mainClass, o.jobArgs, conf, o.work, new File(o.work, "client.log"));
    out.put("client_s", (System.nanoTime() - t1) / 1e9);
    out.put("client_exit_code", rc);
    List<String> jobs = jobsRun(new File(o.work, "client.log"));
    out.put("job_ids", jobs);
    List<String> copied = copyHistories(fs, live, history, new HashSet<>(), jobs);
    out.put("histories", copied);
    if (rc == 0 && copied.isEmpty()) {
      throw new IOException("the job succeeded but no .jhist reached the history done dirs");
    }
    return rc;
  }

  /** The {@code --jobs} mode: every line of the file, in order, on this one cluster. */
  private static int runJobs(
      Options o, File conf, FileSystem fs, Configuration live, Map<String, Object> out)
      throws Exception {
    List<String> lines = Files.readAllLines(o.jobsFile.toPath(), StandardCharsets.UTF_8);
    Set<String> seen = new HashSet<>();
    int failed = 0;
    int done = 0;
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      if (f.length < 2 || !f[0].matches("[\\w.\\-]+")) {
        throw new IllegalArgumentException("bad --jobs line (LABEL TAB CLASS TAB ARGS): " + line);
      }
      File dir = new File(new File(o.work, "jobs"), f[0]);
      dir.mkdirs();
      Map<String, Object> job = new TreeMap<>();
      job.put("label", f[0]);
      job.put("load_avg_1m", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      job.put("started_at_ms", System.currentTimeMillis());
      long t0 = System.nanoTime();
      int rc = runClient(o, f[1], Arrays.asList(f).subList(2, f.length), conf, dir,
          new File(dir, "client.log"));
      job.put("client_s", (System.nanoTime() - t0) / 1e9);
      job.put("exit_code", rc);
      List<String> jobs = jobsRun(new File(dir, "client.log"));
      job.put("job_ids", jobs);
      List<String> copied =
          rc == 0 ? copyHistories(fs, live, dir, seen, jobs) : new ArrayList<>();
      job.put("histories", copied);
      writeJson(new File(dir, "job.json"), job);
      failed += (rc == 0 && !copied.isEmpty()) ? 0 : 1;
      done++;
    }
    out.put("jobs_run", done);
    out.put("jobs_failed", failed);
    return 0;
  }

  /** Cluster settings: per-run folders (nothing shared across runs), stated NM resources. */
  private static Configuration clusterConf(Options o) {
    Configuration c = new YarnConfiguration(new JobConf());
    String w = o.work.getAbsolutePath();
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, w + "/dfs");
    c.set("hadoop.tmp.dir", w + "/tmp");
    c.setLong("dfs.blocksize", o.blockSize);
    c.setLong("dfs.namenode.fs-limits.min-block-size", Math.min(o.blockSize, 1L << 20));
    c.setInt("dfs.replication", o.replication);
    c.setInt("yarn.nodemanager.resource.memory-mb", o.nmMemoryMb);
    // MiniYARNCluster gives each NodeManager this key's memory (default 4096 MiB), not the
    // yarn.nodemanager.resource.memory-mb above: without it waves vanish.
    c.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", o.nmMemoryMb);
    c.setInt("yarn.nodemanager.resource.cpu-vcores", o.nmVcores);
    c.set("yarn.app.mapreduce.am.staging-dir", "/staging");
    // MAPREDUCE-7449: the client puts <ADD_OPENS> in the AM and task command lines and the
    // NodeManager's ContainerLaunch replaces it with the JDK 17 flags (3.5.0 default: false).
    c.setBoolean("mapreduce.jvm.add-opens-as-default", true);
    c.set("mapreduce.client.progressmonitor.pollinterval", "50");
    c.set("mapreduce.client.completion.pollinterval", "50");
    for (String[] kv : o.conf) {
      c.set(kv[0], kv[1]);
    }
    return c;
  }

  /**
   * The settings the live cluster differs from defaults in (addresses, dirs, resources), as
   * the four site files: each *-default.xml is loaded after core-site.xml (JobConf adds
   * mapred-default, YarnConfiguration yarn-default), so a key only in core-site.xml would be
   * overridden by its default, e.g. mapreduce.framework.name back to local.
   */
  private static void writeClientConf(Configuration live, File dir) throws IOException {
    Configuration defaults = new YarnConfiguration(new JobConf());
    Configuration diff = new Configuration(false);
    for (Map.Entry<String, String> e : live) {
      String v = live.get(e.getKey());
      if (v != null && !v.equals(defaults.get(e.getKey()))) {
        diff.set(e.getKey(), v);
      }
    }
    for (String site : new String[] {"core", "hdfs", "mapred", "yarn"}) {
      try (OutputStream os = new FileOutputStream(new File(dir, site + "-site.xml"))) {
        diff.writeXml(os);
      }
    }
  }

  private static int runClient(
      Options o, String mainClass, List<String> args, File confDir, File cwd, File log)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    for (String opt : o.clientOpts.trim().split("\\s+")) {
      if (!opt.isEmpty()) {
        cmd.add(opt);
      }
    }
    cmd.add("-cp");
    cmd.add(confDir.getAbsolutePath() + File.pathSeparator + o.jobJar + File.pathSeparator
        + System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd);
    pb.redirectErrorStream(true).redirectOutput(log);
    client = pb.start();
    if (!client.waitFor(o.timeoutSeconds, TimeUnit.SECONDS)) {
      client.destroyForcibly().waitFor();
      throw new IOException("the job client ran past --timeout-s " + o.timeoutSeconds);
    }
    return client.exitValue();
  }

  /**
   * The ids of the jobs a client ran, in order, from its log's {@code Job.monitorAndPrintJob}
   * lines ("Running job: job_..."): a driver may chain several (the examples' Grep runs a
   * search and then a sort), and each leaves its own history pair.
   */
  static List<String> jobsRun(File log) throws IOException {
    List<String> ids = new ArrayList<>();
    if (!log.isFile()) {
      return ids;
    }
    Matcher m = RUNNING_JOB.matcher(Files.readString(log.toPath(), StandardCharsets.UTF_8));
    while (m.find()) {
      if (!ids.contains(m.group(1))) {
        ids.add(m.group(1));
      }
    }
    return ids;
  }

  private static final Pattern RUNNING_JOB = Pattern.compile("Running job: (job_\\d+_\\d+)");

  /**
   * The AM's JobHistoryEventHandler moves the files to done_intermediate at job end, and the
   * JobHistory server moves them on to done; look in both, waiting briefly for the move.
   * {@code jobs} (the ids the client's log names) are waited for until each has its
   * {@code .jhist} and {@code _conf.xml}, and only theirs are taken: the last job's AM may
   * still be moving its files when the client returns while an earlier job's are there
   * already. Without ids (a log that names none), any one pair is taken. {@code seen} holds
   * the file names already taken by earlier jobs on this cluster, so each job gets its own
   * pair and only its own.
   */
  private static List<String> copyHistories(
      FileSystem fs, Configuration live, File target, Set<String> seen, List<String> jobs)
      throws IOException, InterruptedException {
    String staging = live.get("yarn.app.mapreduce.am.staging-dir", "/staging");
    String[] roots = {
      live.get("mapreduce.jobhistory.intermediate-done-dir", staging + "/history/done_intermediate"),
      live.get("mapreduce.jobhistory.done-dir", staging + "/history/done"),
    };
    List<String> copied = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      for (String root : roots) {
        Path r = new Path(root);
        if (!fs.exists(r)) {
          continue;
        }
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(r, true);
        while (it.hasNext()) {
          Path p = it.next().getPath();
          String n = p.getName();
          boolean wanted = (n.endsWith(".jhist") || n.endsWith("_conf.xml"))
              && (jobs.isEmpty() || jobs.stream().anyMatch(j -> ofJob(n, j)));
          File dst = new File(target, n);
          if (wanted && !dst.exists() && !seen.contains(n)) {
            fs.copyToLocalFile(p, new Path(dst.getAbsolutePath()));
            copied.add(dst.getAbsolutePath());
          }
        }
      }
      if (complete(copied, jobs) || System.currentTimeMillis() > deadline) {
        break; // past the deadline: what there is (a killed job's AM may write none)
      }
      for (String c : copied) {
        Files.delete(new File(c).toPath());
      }
      copied.clear();
      Thread.sleep(250);
    }
    for (String c : copied) {
      seen.add(new File(c).getName());
    }
    return copied;
  }

  /** Whether history file {@code name} is job {@code id}'s: {@code <id>-…jhist}, {@code <id>_conf.xml}. */
  private static boolean ofJob(String name, String id) {
    return name.startsWith(id + "-") || name.equals(id + "_conf.xml");
  }

  private static boolean complete(List<String> copied, List<String> jobs) {
    List<String> names = new ArrayList<>();
    for (String c : copied) {
      names.add(new File(c).getName());
    }
    if (jobs.isEmpty()) {
      return names.stream().anyMatch(n -> n.endsWith(".jhist"))
          && names.stream().anyMatch(n -> n.endsWith("_conf.xml"));
    }
    for (String j : jobs) {
      boolean jhist = names.stream().anyMatch(n -> ofJob(n, j) && n.endsWith(".jhist"));
      if (!jhist || !names.contains(j + "_conf.xml")) {
        return false;
      }
    }
    return true;
  }

  private static synchronized void stopAll() {
    if (client != null && client.isAlive()) {
      client.destroyForcibly();
    }
    if (yarn != null) {
      yarn.stop();
      yarn = null;
    }
    if (dfs != null) {
      dfs.shutdown(true);
      dfs = null;
    }
  }

  /**
   * Container JVMs run under setsid (DefaultContainerExecutor), outside this JVM's process
   * tree; the NodeManagers' stop signals them, but one may still be exiting. Wait up to 10 s
   * for every process whose command line names the work folder (other than this JVM and its
   * ancestors), then kill what remains.
   */
  private static int reapContainers(File work) throws InterruptedException {
    String key = work.getAbsolutePath();
    // Never this JVM nor its ancestors: the command that started the launcher (a Python
    // driver, a shell) may well name the work folder on its own command line.
    Set<Long> spared = new HashSet<>();
    for (Optional<ProcessHandle> h = Optional.of(ProcessHandle.current()); h.isPresent();
        h = h.get().parent()) {
      spared.add(h.get().pid());
    }
    long deadline = System.currentTimeMillis() + 10_000;
    List<ProcessHandle> left = new ArrayList<>();
    do {
      left.clear();
      ProcessHandle.allProcesses()
          .filter(h -> !spared.contains(h.pid()))
          .filter(h -> h.info().commandLine().map(c -> c.contains(key)).orElse(false))
          .forEach(left::add);
      if (!left.isEmpty()) {
        Thread.sleep(200);
      }
    } while (!left.isEmpty() && System.currentTimeMillis() < deadline);
    for (ProcessHandle h : left) {
      h.destroyForcibly();
    }
    return left.size();
  }

  private static double cpuSeconds() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() / 1e9;
    }
    return -1;
  }

  private static void writeJson(File f, Map<String, Object> m) throws IOException {
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('\n').append(quote(e.getKey())).append(": ").append(value(e.getValue()));
    }
    sb.append("\n}\n");
    Files.write(f.toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static String value(Object v) {
    if (v instanceof Number) {
      return v.toString();
    }
    if (v instanceof List) {
      List<String> parts = new ArrayList<>();
      for (Object x : (List<?>) v) {
        parts.add(quote(String.valueOf(x)));
      }
      return "[" + String.join(", ", parts) + "]";
    }
    return quote(String.valueOf(v));
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        sb.append('\\').append(ch);
      } else if (ch < 0x20) {
        sb.append(String.format("\\u%04x", (int) ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.append('"').toString();
  }
}
