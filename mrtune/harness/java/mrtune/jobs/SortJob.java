package mrtune.jobs;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.partition.InputSampler;
import org.apache.hadoop.mapreduce.lib.partition.TotalOrderPartitioner;

/**
 * Identity sort of 100-byte records (10-byte key, 90-byte value), as TeraSort. Partitioning is
 * hash (default) or total order ({@code mrtune.sort.partitioner=total}: the partition file is
 * built by a deterministic InputSampler.IntervalSampler over the input keys).
 */
public class SortJob extends MrtTool {
  @Override
  protected Job createJob(Configuration conf, Path in, Path out) throws Exception {
    Job job = Job.getInstance(conf, "mrtune-sort");
    job.setJarByClass(SortJob.class);
    job.setMapperClass(Mapper.class);
    job.setReducerClass(Reducer.class);
    job.setInputFormatClass(RecordInputFormat.class);
    job.setOutputFormatClass(RecordOutputFormat.class);
    job.setMapOutputKeyClass(FixedKey.class);
    job.setMapOutputValueClass(FixedValue.class);
    job.setOutputKeyClass(FixedKey.class);
    job.setOutputValueClass(FixedValue.class);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    String partitioner = conf.get("mrtune.sort.partitioner", "hash");
    if (partitioner.equals("total") && job.getNumReduceTasks() > 1) {
      Path partFile = new Path(out.getParent(), out.getName() + "_partitions");
      TotalOrderPartitioner.setPartitionFile(job.getConfiguration(), partFile);
      InputSampler.Sampler<FixedKey, FixedValue> sampler =
          new InputSampler.IntervalSampler<FixedKey, FixedValue>(0.001, 64);
      InputSampler.writePartitionFile(job, sampler);
      job.setPartitionerClass(TotalOrderPartitioner.class);
    } else if (!partitioner.equals("hash") && !partitioner.equals("total")) {
      throw new IOException("mrtune.sort.partitioner must be hash or total, got " + partitioner);
    }
    return job;
  }
}
