package mrtune.yarn;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The launcher's command line (see {@link MiniClusterLauncher}); bad input exits 2. */
final class Options {
  File work;
  int datanodes = 3;
  long blockSize = 8L << 20;
  int replication = 2;
  int nodeManagers = 2;
  int nmMemoryMb = 1024;
  int nmVcores = 2;
  long timeoutSeconds = 900;
  String clientOpts = "-Xmx256m";
  String jobJar;
  String mainClass;
  /** A file of jobs to run one after another on the same cluster (see MiniClusterLauncher). */
  File jobsFile;
  final List<String[]> conf = new ArrayList<>();
  final List<String[]> puts = new ArrayList<>();
  final List<String> jobArgs = new ArrayList<>();

  static Options parse(String[] a) {
    Options o = new Options();
    int i = 0;
    try {
      for (; i < a.length; i++) {
        String k = a[i];
        if (k.equals("--")) {
          o.jobArgs.addAll(Arrays.asList(a).subList(i + 1, a.length));
          break;
        }
        String v = a[++i];
        switch (k) {
          case "--work": o.work = new File(v).getAbsoluteFile(); break;
          case "--datanodes": o.datanodes = positive(k, v); break;
          case "--block-size": o.blockSize = Long.parseLong(v); break;
          case "--replication": o.replication = positive(k, v); break;
          case "--nodemanagers": o.nodeManagers = positive(k, v); break;
          case "--nm-memory-mb": o.nmMemoryMb = positive(k, v); break;
          case "--nm-vcores": o.nmVcores = positive(k, v); break;
          case "--timeout-s": o.timeoutSeconds = positive(k, v); break;
          case "--client-opts": o.clientOpts = v; break;
          case "--job-jar": o.jobJar = v; break;
          case "--main": o.mainClass = v; break;
          case "--jobs": o.jobsFile = new File(v).getAbsoluteFile(); break;
          case "--conf": o.conf.add(pair(k, v)); break;
          case "--put": o.puts.add(pair(k, v)); break;
          default: throw new IllegalArgumentException("unknown option " + k);
        }
      }
      if (o.work == null || o.jobJar == null || (o.mainClass == null) == (o.jobsFile == null)) {
        throw new IllegalArgumentException(
            "--work, --job-jar and one of --main or --jobs are required");
      }
    } catch (ArrayIndexOutOfBoundsException e) {
      usage("option " + a[i - 1] + " needs a value");
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
    }
    return o;
  }

  private static int positive(String k, String v) {
    int n = Integer.parseInt(v);
    if (n <= 0) {
      throw new IllegalArgumentException(k + " must be positive, got " + v);
    }
    return n;
  }

  private static String[] pair(String k, String v) {
    int eq = v.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(k + " wants A=B, got " + v);
    }
    return new String[] {v.substring(0, eq), v.substring(eq + 1)};
  }

  private static void usage(String why) {
    System.err.println("MiniClusterLauncher: " + why);
    System.exit(2);
  }
}
