package mrtune.jobs;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import java.util.StringTokenizer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * Postings lists (an inverted index) over text: for every word, the list of line numbers it
 * occurs on. The combiner concatenates lists, so unlike WordCount's sum a combined record
 * grows with the number of records merged into it: a list-building combiner. A list is a
 * vint count followed by 4-byte ints, so its serialized width is affine in its length.
 * The combiner is on unless {@code mrtune.postings.combiner=false}.
 */
public class Postings extends MrtTool {
  /** A list of ints: vint length, then each int in 4 bytes. */
  public static class IntList implements Writable {
    private int[] items = new int[4];
    private int size;

    void clear() {
      size = 0;
    }

    void add(int v) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = v;
    }

    void addAll(IntList other) {
      if (size + other.size > items.length) {
        items = Arrays.copyOf(items, Math.max(items.length * 2, size + other.size));
      }
      System.arraycopy(other.items, 0, items, size, other.size);
      size += other.size;
    }

    @Override
    public void write(DataOutput out) throws IOException {
      WritableUtils.writeVInt(out, size);
      for (int i = 0; i < size; i++) {
        out.writeInt(items[i]);
      }
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      size = 0;
      int n = WritableUtils.readVInt(in);
      if (n > items.length) {
        items = new int[n];
      }
      for (int i = 0; i < n; i++) {
        items[i] = in.readInt();
      }
      size = n;
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < size; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(items[i]);
      }
      return b.toString();
    }
  }

  public static class LineMapper extends Mapper<LongWritable, Text, Text, IntList> {
    private final Text word = new Text();
    private final IntList one = new IntList();

    @Override
    protected void map(LongWritable key, Text value, Context ctx)
        throws IOException, InterruptedException {
      // the line's position in the file in 64-byte units: an int for inputs up to 128 GiB
      one.clear();
      one.add((int) (key.get() >>> 6));
      StringTokenizer it = new StringTokenizer(value.toString());
      while (it.hasMoreTokens()) {
        word.set(it.nextToken());
        ctx.write(word, one);
      }
    }
  }

  /** Concatenates the lists of one word (combiner and reducer). */
  public static class ConcatReducer extends Reducer<Text, IntList, Text, IntList> {
    private final IntList all = new IntList();

    @Override
    protected void reduce(Text key, Iterable<IntList> values, Context ctx)
        throws IOException, InterruptedException {
      all.clear();
      for (IntList v : values) {
        all.addAll(v);
      }
      ctx.write(key, all);
    }
  }

  @Override
  protected Job createJob(Configuration conf, Path in, Path out) throws IOException {
    Job job = Job.getInstance(conf, "mrtune-postings");
    job.setJarByClass(Postings.class);
    job.setMapperClass(LineMapper.class);
    if (conf.getBoolean("mrtune.postings.combiner", true)) {
      job.setCombinerClass(ConcatReducer.class);
    }
    job.setReducerClass(ConcatReducer.class);
    job.setInputFormatClass(TextInputFormat.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntList.class);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
