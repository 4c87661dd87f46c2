import { IsInt, IsString, Min, MinLength } from 'class-validator';

/** An order as the billing consumer accepts it: ValidationPipe rejects anything else (retried, then DLQ). */
export class OrderDto {
  @IsInt()
  @Min(0)
  seq!: number;

  @IsString()
  @MinLength(1)
  item!: string;

  @IsString()
  run!: string;
}
