package mrtune.jobs;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * The generic benchmark of Ceesay et al. (section IV): over 100-byte records, each map emits
 * only the first {@code mrtune.selectivity.percent} % of its split's records (floor of
 * records x percent / 100) and the reduce writes every record it receives. By default the map
 * still reads its whole split (so the read phase scales with the input size);
 * {@code mrtune.selectivity.read.all=false} stops reading at the threshold, as the paper's
 * overridden run() does. {@code mrtune.selectivity.value.bytes=V} (default: the records' own
 * 90-byte values) emits values of V bytes instead (the input value repeated or cut, written
 * as a vint length and the bytes), for benchmarks that need other record widths.
 */
public class SelectivityJob extends MrtTool {
  /**
   * The selection both maps share: emit the first floor(n x percent / 100) records of the split
   * (reading on to its end unless {@code mrtune.selectivity.read.all=false}); subclasses say
   * what value each emitted record carries.
   */
  public abstract static class Selective<V> extends Mapper<FixedKey, FixedValue, FixedKey, V> {
    /** The value to emit for an input record's value. */
    protected abstract V value(FixedValue in);

    @Override
    public void run(Context ctx) throws IOException, InterruptedException {
      setup(ctx);
      Configuration conf = ctx.getConfiguration();
      double pct = conf.getDouble("mrtune.selectivity.percent", 100.0);
      boolean readAll = conf.getBoolean("mrtune.selectivity.read.all", true);
      long n = RecordInputFormat.recordsIn((FileSplit) ctx.getInputSplit());
      long emit = (long) Math.floor(n * pct / 100.0 + 1e-9);
      long i = 0;
      try {
        while (ctx.nextKeyValue()) {
          if (i < emit) {
            ctx.write(ctx.getCurrentKey(), value(ctx.getCurrentValue()));
          } else if (!readAll) {
            break;
          }
          i++;
        }
      } finally {
        cleanup(ctx);
      }
    }
  }

  /** Emits the records as they are (100 bytes). */
  public static class SelectiveMapper extends Selective<FixedValue> {
    @Override
    protected FixedValue value(FixedValue in) {
      return in;
    }
  }

  /** Emits values resized to {@code mrtune.selectivity.value.bytes}. */
  public static class SizedMapper extends Selective<SizedValue> {
    private final SizedValue out = new SizedValue();
    private int width = FixedValue.LENGTH;

    @Override
    protected void setup(Context ctx) {
      width = ctx.getConfiguration().getInt("mrtune.selectivity.value.bytes", FixedValue.LENGTH);
    }

    @Override
    protected SizedValue value(FixedValue in) {
      out.fill(in.getBytes(), FixedValue.LENGTH, width);
      return out;
    }
  }

  @Override
  protected Job createJob(Configuration conf, Path in, Path out) throws IOException {
    double pct = conf.getDouble("mrtune.selectivity.percent", 100.0);
    if (!(pct >= 0.0 && pct <= 100.0)) {
      throw new IOException("mrtune.selectivity.percent must be in [0, 100], got " + pct);
    }
    Job job = Job.getInstance(conf, "mrtune-selectivity");
    job.setJarByClass(SelectivityJob.class);
    job.setReducerClass(Reducer.class);
    job.setInputFormatClass(RecordInputFormat.class);
    job.setMapOutputKeyClass(FixedKey.class);
    job.setOutputKeyClass(FixedKey.class);
    String width = conf.get("mrtune.selectivity.value.bytes");
    if (width == null) {
      job.setMapperClass(SelectiveMapper.class);
      job.setOutputFormatClass(RecordOutputFormat.class);
      job.setMapOutputValueClass(FixedValue.class);
      job.setOutputValueClass(FixedValue.class);
    } else {
      int w = Integer.parseInt(width.trim());
      if (w < 0 || w > 1 << 20) {
        throw new IOException("mrtune.selectivity.value.bytes must be in [0, 1048576], got " + w);
      }
      job.setMapperClass(SizedMapper.class);
      job.setOutputFormatClass(SizedRecordOutputFormat.class);
      job.setMapOutputValueClass(SizedValue.class);
      job.setOutputValueClass(SizedValue.class);
    }
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
