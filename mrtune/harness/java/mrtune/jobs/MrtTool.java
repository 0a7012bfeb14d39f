package mrtune.jobs;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.VersionInfo;

/**
 * Common driver of the project's jobs: builds the job (subclass), runs it, and writes what the
 * Python harness reads into the folder named by {@code mrtune.report.dir}:
 * {@code conf.xml} (the job's configuration as Hadoop resolved it, after -D and the job's own
 * settings), {@code counters.tsv} (group, group display name, counter, display name, value) and
 * {@code timing.tsv} (submit/finish wall clock in ms, success, job id, Hadoop version).
 */
public abstract class MrtTool extends Configured implements Tool {
  /** Opt-in codec probe run (issue 20): never set in a timed run. */
  public static final String CODEC_PROBE = "mrtune.codec.probe";

  /** Build the job for input {@code in} and output {@code out}. */
  protected abstract Job createJob(Configuration conf, Path in, Path out) throws Exception;

  @Override
  public int run(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: <job> [-D k=v ...] INPUT OUTPUT");
      return 2;
    }
    Configuration conf = getConf();
    if (conf.getBoolean(CODEC_PROBE, false)) {
      // the probe wraps Hadoop's own map output buffer (CodecProbeCollector's doc)
      conf.set("mapreduce.job.map.output.collector.class", CodecProbeCollector.class.getName());
    }
    Job job = createJob(conf, new Path(args[0]), new Path(args[1]));
    long submit = System.currentTimeMillis();
    boolean ok = job.waitForCompletion(true);
    long done = System.currentTimeMillis();
    String reportDir = job.getConfiguration().get("mrtune.report.dir");
    if (reportDir != null) {
      writeReport(job, reportDir, submit, done, ok);
    }
    return ok ? 0 : 1;
  }

  private static void writeReport(Job job, String dir, long submit, long done, boolean ok)
      throws IOException {
    try (OutputStream out = new FileOutputStream(dir + "/conf.xml")) {
      job.getConfiguration().writeXml(out);
    }
    Counters counters = job.getCounters();
    try (PrintWriter w = new PrintWriter(dir + "/counters.tsv", StandardCharsets.UTF_8)) {
      if (counters != null) {
        for (CounterGroup g : counters) {
          for (Counter c : g) {
            w.println(g.getName() + "\t" + g.getDisplayName() + "\t" + c.getName() + "\t"
                + c.getDisplayName() + "\t" + c.getValue());
          }
        }
      }
    }
    try (PrintWriter w = new PrintWriter(dir + "/timing.tsv", StandardCharsets.UTF_8)) {
      w.println("submit_ms\t" + submit);
      w.println("done_ms\t" + done);
      w.println("success\t" + ok);
      w.println("job_id\t" + job.getJobID());
      w.println("hadoop_version\t" + VersionInfo.getVersion());
    }
  }
}
