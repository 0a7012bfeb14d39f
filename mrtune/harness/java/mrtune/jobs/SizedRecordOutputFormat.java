package mrtune.jobs;

import java.io.DataOutputStream;
import java.io.IOException;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.RecordWriter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/** Writes each (FixedKey, SizedValue) pair as its raw key and value bytes. */
public class SizedRecordOutputFormat extends FileOutputFormat<FixedKey, SizedValue> {
  @Override
  public RecordWriter<FixedKey, SizedValue> getRecordWriter(TaskAttemptContext context)
      throws IOException {
    Path file = getDefaultWorkFile(context, "");
    FileSystem fs = file.getFileSystem(context.getConfiguration());
    final DataOutputStream out = fs.create(file, false);
    return new RecordWriter<FixedKey, SizedValue>() {
      @Override
      public void write(FixedKey key, SizedValue value) throws IOException {
        out.write(key.getBytes(), 0, FixedKey.LENGTH);
        out.write(value.getBytes(), 0, value.getLength());
      }

      @Override
      public void close(TaskAttemptContext ctx) throws IOException {
        out.close();
      }
    };
  }
}
